package dev.tandem.agent.bench;

import static org.awaitility.Awaitility.await;

import dev.tandem.api.crd.CrdFile;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.TestNodes;
import dev.tandem.fixtures.PodJvmOptions;
import dev.tandem.fixtures.ProcessFootprint;
import dev.tandem.fixtures.Topologies;
import dev.tandem.fixtures.kube.MockApiServer;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The agent's footprint in {@code run} mode: the agent jar as its own process on the XE8640
 * fixture, publishing to the fabric8 mock API server (CRUD mode, CRD, Node and one pod on the node
 * installed), no kubelet socket; after the object is published and {@code seconds} more, its RSS
 * (anonymous and file-backed) and peak RSS are read from {@code /proc}. The JVM options default to
 * the DaemonSet's; {@code -Dbreakdown=DIR} writes the agent's smaps, threads and Native Memory
 * Tracking summary there before it is stopped (NMT only with {@code
 * -XX:NativeMemoryTracking=summary} among the agent's options).
 *
 * <pre>
 * mvn -q -ntp -pl node-topology-agent -am install -DskipTests
 * cd node-topology-agent
 * mvn -q -ntp dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test.classpath
 * java -cp target/test-classes:target/classes:$(cat target/test.classpath) \
 *     [-Dagent.java=/path/to/bin/java] [-Dagent.jar=...] [-Dbreakdown=DIR] \
 *     dev.tandem.agent.bench.AgentMemory [seconds] [agent JVM options...]
 * </pre>
 */
public final class AgentMemory {

  /**
   * The DaemonSet's JAVA_TOOL_OPTIONS (manifests/base, documented in docs/agent.md), without the
   * image's cache.
   */
  static final List<String> DAEMONSET_OPTIONS =
      PodJvmOptions.of("manifests/base/daemonset-node-topology-agent.yaml");

  private AgentMemory() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
    List<String> jvm =
        args.length > 1 ? Arrays.asList(args).subList(1, args.length) : DAEMONSET_OPTIONS;
    Path jar = Path.of(System.getProperty("agent.jar", "target/node-topology-agent.jar"));
    run(jvm, jar, fixture(), Files.createTempDirectory("agent-memory"), seconds);
  }

  /** The hwloc fixture the agent discovers (-Dfixture, default the XE8640). */
  static Path fixture() {
    return Path.of(
        System.getProperty(
            "fixture", Topologies.path("dell-poweredge-xe8640-h100x4.xml").toString()));
  }

  /**
   * One agent process with {@code jvm} against a fresh mock API server: waits for its first
   * publish, lets it run {@code seconds} more, prints its figures and ends it with SIGTERM.
   */
  static void run(List<String> jvm, Path jar, Path fixture, Path dir, int seconds)
      throws Exception {
    MockApiServer api = MockApiServer.crud();
    Process agent = null;
    try {
      KubernetesClient client = api.client();
      CrdFile.install(client);
      TestNodes.create(client, "xe8640-1");
      client
          .pods()
          .inNamespace("ml")
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("trainer")
                  .withNamespace("ml")
                  .endMetadata()
                  .withNewSpec()
                  .withNodeName("xe8640-1")
                  .addNewContainer()
                  .withName("main")
                  .withNewResources()
                  .withLimits(
                      Map.of("nvidia.com/gpu", new Quantity("2"), "rdma/hca", new Quantity("2")))
                  .endResources()
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
      agent = start(jvm, jar, fixture, dir, api);
      long t0 = System.nanoTime();
      Process running = agent;
      await("the agent publishing; see " + dir.resolve("agent.log"))
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .failFast("the agent exited; see " + dir.resolve("agent.log"), () -> !running.isAlive())
          .until(() -> client.resources(NodeTopology.class).withName("xe8640-1").get() != null);
      System.out.printf(
          "published after %d ms; measuring in %d s%n",
          (System.nanoTime() - t0) / 1_000_000, seconds);
      if (agent.waitFor(seconds, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "the agent exited while it was measured; see " + dir.resolve("agent.log"));
      }
      System.out.println("agent JVM options " + jvm);
      System.out.printf(
          "agent %s, CPU %.2f s%n",
          ProcessFootprint.of(agent.pid()),
          agent.info().totalCpuDuration().map(d -> d.toMillis() / 1000.0).orElse(-1.0));
      String breakdown = System.getProperty("breakdown");
      if (breakdown != null) {
        ProcessFootprint.writeBreakdown(agent.pid(), Path.of(breakdown));
      }
    } finally {
      if (agent != null) {
        agent.destroy();
        agent.waitFor();
      }
      api.close();
    }
  }

  private static Process start(
      List<String> jvm, Path jar, Path fixture, Path dir, MockApiServer api) throws Exception {
    List<String> cmd = new ArrayList<>();
    // -Dagent.java: the agent on another JDK (17 against 25, docs/performance.md)
    cmd.add(
        System.getProperty(
            "agent.java", Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(jvm);
    cmd.addAll(List.of("-jar", jar.toString(), "run"));
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(new File(dir.toFile(), "agent.log"));
    Map<String, String> env = pb.environment();
    env.put("MALLOC_ARENA_MAX", "1");
    env.put("NODE_NAME", "xe8640-1");
    env.put("TANDEM_HWLOC_XML", fixture.toAbsolutePath().toString());
    env.put("TANDEM_POD_RESOURCES_SOCKET", dir.resolve("kubelet.sock").toString());
    env.put("TANDEM_PORT", "0");
    api.pointAt(env);
    return pb.start();
  }
}
