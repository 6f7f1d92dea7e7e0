package dev.tandem.extender;

import dev.tandem.extender.certs.CertificatesCommand;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.config.ExtenderSettings;
import dev.tandem.extender.config.YamlFile;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.kube.KubeCluster;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Settings;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of the scheduler-extender jar: {@code --demo}, the in-cluster extender, or {@code
 * certificates} (the certificate Job).
 */
public final class ExtenderMain {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderMain.class);

  private ExtenderMain() {}

  public static void main(String[] args) {
    List<String> flags = List.of(args);
    if (!flags.isEmpty() && flags.get(0).equals("certificates")) {
      System.exit(
          CertificatesCommand.run(flags.subList(1, flags.size()), System.getenv(), System.out));
      return;
    }
    if (Settings.wantsHelp(flags)) {
      System.out.print(ExtenderSettings.SETTINGS.usage());
      System.exit(0);
      return;
    }
    Map<String, String> env = System.getenv();
    Resolved resolved;
    ExtenderConfig config;
    try {
      resolved = ExtenderSettings.SETTINGS.resolve(flags, env, YamlFile::read);
      config = ExtenderConfig.from(resolved, env);
      config.requireVerbsAuthentication();
    } catch (InvalidConfigurationException e) {
      System.err.println("scheduler-extender: invalid configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    LOG.info("scheduler extender: {}", resolved.describe());
    Vertx vertx = Vertx.vertx();
    Future<Listeners> started = config.demo() ? demo(vertx, config) : cluster(vertx, config);
    started.onFailure(
        e -> {
          System.err.println("scheduler-extender: cannot start: " + e.getMessage());
          LOG.debug("start failure", e);
          System.exit(1);
        });
  }

  private static Future<Listeners> demo(Vertx vertx, ExtenderConfig config) {
    return vertx
        .executeBlocking(
            () ->
                config.demoTopologies() != null
                    ? DemoCluster.fromDirectory(config.demoTopologies())
                    : DemoCluster.fromBundledFixtures())
        .compose(
            cluster ->
                Extender.start(vertx, config, cluster)
                    .onSuccess(listeners -> greet(config, cluster.state(), listeners)));
  }

  private static Future<Listeners> cluster(Vertx vertx, ExtenderConfig config) {
    return vertx
        .executeBlocking(() -> KubeCluster.connect(vertx, config))
        .compose(
            kube -> {
              ExtenderMetrics metrics = new ExtenderMetrics(kube.cluster());
              return Extender.start(vertx, config, kube.cluster(), metrics, kube.classes())
                  .onSuccess(s -> kube.start(metrics));
            });
  }

  private static void greet(ExtenderConfig config, ClusterState state, Listeners listeners) {
    String page =
        (config.inspectionTls() ? "https" : "http") + "://localhost:" + listeners.inspectionPort();
    String base = (config.tls() ? "https" : "http") + "://localhost:" + listeners.verbsPort();
    List<String> names = state.nodes().stream().map(NodeEntry::name).limit(12).toList();
    String nodes = names.stream().map(n -> "\"" + n + "\"").collect(Collectors.joining(","));
    System.out.println(
        "Tandem scheduler extender (demo, "
            + state.size()
            + " nodes from "
            + (config.demoTopologies() != null
                ? config.demoTopologies()
                : "bundled real topologies")
            + ")");
    System.out.println("  page:  " + page + "/ui/");
    System.out.println(
        "  try:   curl -s -X POST "
            + base
            + config.prefix()
            + "/filter"
            + " -H 'Content-Type: application/json' -d '{\"Pod\":{\"metadata\":{\"name\":\"demo\","
            + "\"namespace\":\"default\",\"uid\":\"demo-1\"},\"spec\":{\"containers\":[{\"name\":\"main\","
            + "\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"2\",\"rdma/hca\":\"2\"}}}]}},"
            + "\"Nodes\":null,\"NodeNames\":["
            + nodes
            + "]}'");
  }
}
