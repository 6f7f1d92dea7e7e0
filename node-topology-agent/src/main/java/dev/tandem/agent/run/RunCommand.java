package dev.tandem.agent.run;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code run}: the DaemonSet mode of the agent. */
public final class RunCommand {

  private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

  private RunCommand() {}

  public static int run(String[] args) {
    return run(args, System.getenv());
  }

  /**
   * Parses and validates; returns 0 for help, 2 for bad flags or values, otherwise runs until
   * stopped.
   */
  static int run(String[] args, Map<String, String> env) {
    if (RunArgs.wantsHelp(args)) {
      System.out.print(RunArgs.usage());
      return 0;
    }
    RunConfig config;
    try {
      config = RunConfig.fromMap(RunArgs.settings(args, env));
    } catch (InvalidConfigurationException | RunArgs.UnknownFlagException e) {
      System.err.println("node-topology-agent run: " + e.getMessage());
      return 2;
    }
    LOG.info("Starting node-topology-agent: {}", config.describe());
    Agent agent;
    try {
      agent = Agent.start(config).await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.err.println(
          "node-topology-agent run: cannot start: "
              + e.getMessage()
              + " (is port "
              + config.port()
              + " free?)");
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  LOG.info("Stopping node-topology-agent");
                  agent.stop(Duration.ofSeconds(10));
                  stopped.countDown();
                },
                "agent-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }
}
