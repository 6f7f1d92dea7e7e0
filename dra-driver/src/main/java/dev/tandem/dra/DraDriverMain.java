package dev.tandem.dra;

import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Settings;
import dev.tandem.kit.kube.KubeConnection;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of the dra-driver jar: settings (exit 2 on a bad one), then the driver ({@link
 * DraDriver}) until SIGTERM, which removes its sockets; or, with a first argument {@code slices},
 * the slices it would publish for an hwloc export ({@link SlicesCommand}). A start that fails
 * (discovery, the pool, the API server) exits 1, for the DaemonSet to restart it.
 */
public final class DraDriverMain {

  private static final Logger LOG = LoggerFactory.getLogger(DraDriverMain.class);

  private DraDriverMain() {}

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("slices")) {
      System.exit(
          SlicesCommand.run(Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
      return;
    }
    if (Settings.wantsHelp(List.of(args))) {
      System.out.print(DraSettings.SETTINGS.usage());
      System.exit(0);
      return;
    }
    Map<String, String> env = System.getenv();
    DraConfig config;
    try {
      Resolved resolved = DraSettings.SETTINGS.resolve(List.of(args), env);
      config = DraConfig.from(resolved, env);
      LOG.info("dra-driver: {}", resolved.describe());
    } catch (InvalidConfigurationException e) {
      System.err.println("dra-driver: " + e.getMessage());
      System.exit(2);
      return;
    }
    KubeConnection connection = KubeConnection.of(config.kubeconfig());
    LOG.info("API server: {}", connection.describe());
    KubernetesClient kube = connection.client();
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(1)
                .setWorkerPoolSize(4)
                .setInternalBlockingPoolSize(2));
    DraDriver.start(vertx, config, kube)
        .onSuccess(
            driver -> {
              shutdownHook(driver, vertx, kube);
              driver
                  .listenOps(config.opsPort())
                  .onSuccess(p -> LOG.info("serving /healthz, /readyz and /metrics on port {}", p))
                  .onFailure(
                      e -> exit("cannot listen on --ops-port " + config.opsPort() + ": " + e));
            })
        .onFailure(
            e ->
                exit(
                    "dra-driver: start failed on node "
                        + config.node().nodeName()
                        + ": "
                        + e.getMessage()));
  }

  private static void shutdownHook(DraDriver driver, Vertx vertx, KubernetesClient kube) {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  LOG.info("stopping: removing the registration and DRA sockets");
                  try {
                    driver
                        .stop()
                        .eventually(vertx::close)
                        .toCompletionStage()
                        .toCompletableFuture()
                        .get(5, TimeUnit.SECONDS);
                  } catch (Exception e) {
                    LOG.warn("clean shutdown incomplete: {}", e.toString());
                  }
                  kube.close();
                },
                "dra-driver-shutdown"));
  }

  private static void exit(String why) {
    LOG.error("{}", why);
    new Thread(() -> System.exit(1), "dra-driver-exit").start();
  }
}
