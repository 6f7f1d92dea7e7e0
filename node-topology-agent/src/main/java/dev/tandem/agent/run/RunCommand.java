package dev.tandem.agent.run;

import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Settings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code run}: the DaemonSet mode of the agent. */
public final class RunCommand {

  private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

  private RunCommand() {}

  /**
   * Parses and validates; returns 0 for help, 2 for bad flags or values, otherwise runs until
   * stopped.
   */
  public static int run(String[] args, Map<String, String> env) {
    if (Settings.wantsHelp(List.of(args))) {
      System.out.print(RunSettings.SETTINGS.usage());
      return 0;
    }
    Resolved resolved;
    RunConfig config;
    try {
      resolved = RunSettings.SETTINGS.resolve(List.of(args), env);
      config = RunConfig.from(resolved, env);
    } catch (InvalidConfigurationException e) {
      System.err.println("node-topology-agent run: " + e.getMessage());
      return 2;
    }
    LOG.info("Starting node-topology-agent: {}", resolved.describe());
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
