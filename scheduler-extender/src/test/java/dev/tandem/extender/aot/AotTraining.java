package dev.tandem.extender.aot;

import static org.awaitility.Awaitility.await;

import dev.tandem.api.crd.CrdFile;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.extender.manifests.ExtenderDeployment;
import dev.tandem.fixtures.AotCacheTraining;
import dev.tandem.fixtures.kube.MockApiServer;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes the extender's AOT cache (JEP 514, {@code -XX:AOTCacheOutput}) from its hot path as the
 * Deployment runs it: the shaded jar in cluster mode (informers, no leader election) against the
 * fabric8 mock API server (CRUD mode) holding a generated cluster of {@value #NODES} GPU nodes (the
 * bundled real topologies in turn, as NodeTopology objects with Nodes), then, over loopback HTTP,
 * kube-scheduler's cycle for {@value #PODS} pending pods of varied shapes: {@code filter} naming
 * every node, {@code prioritize} on the nodes that passed, {@code bind} to the best (a Binding and
 * the plan annotation written to the mock). The request bodies are the pods as the API server
 * serializes them. SIGTERM ends the extender and its JVM writes the cache. The build runs this
 * after shading the jar (the root POM's {@code aot-cache} execution); the image ships the cache and
 * the Deployment names it with {@code -XX:AOTCache}. A training that fails leaves no cache and
 * fails no build ({@link AotCacheTraining}).
 *
 * <pre>
 * (cd scheduler-extender &amp;&amp; java -cp target/test-classes:target/classes:TEST_CLASSPATH \
 *     dev.tandem.extender.aot.AotTraining target/scheduler-extender.jar target/scheduler-extender.aot [pods])
 * </pre>
 */
public final class AotTraining {

  static final int NODES = 100;
  static final int PODS = 300;
  private static final String PREFIX = "/scheduler";
  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  private AotTraining() {}

  public static void main(String[] args) throws Exception {
    AotCacheTraining.train(
        args,
        "scheduler extender",
        "extender-aot-training",
        ExtenderDeployment.jvmOptions(),
        PODS,
        AotTraining::train);
  }

  private static void train(List<String> jvm, Path jar, Path dir, int pods) throws Exception {
    MockApiServer.quietRequests();
    MockApiServer api = MockApiServer.mixed();
    Process extender = null;
    try {
      KubernetesClient client = api.client();
      long t0 = System.nanoTime();
      List<String> nodes = generate(client);
      System.out.printf("mock API server filled in %.1f s%n", (System.nanoTime() - t0) / 1e9);
      List<Pod> pending = pending(pods);
      for (Pod pod : pending) {
        // CRUD mode has no Binding subresource: the API server's answer to each, as expectations
        api.server()
            .expect()
            .post()
            .withPath("/api/v1/namespaces/ml/pods/" + pod.getMetadata().getName() + "/binding")
            .andReturn(201, "{\"apiVersion\":\"v1\",\"kind\":\"Status\",\"status\":\"Success\"}")
            .once();
      }
      int port = freePort();
      int inspection = freePort();
      extender = start(jvm, jar, dir, port, inspection, api);
      Scheduler scheduler = new Scheduler(port);
      long started = System.nanoTime();
      scheduler.awaitReady(extender, dir, inspection);
      System.out.printf("extender ready in %.1f s%n", (System.nanoTime() - started) / 1e9);
      for (Pod pod : pending) {
        scheduler.cycle(pod, nodes);
      }
      System.out.printf(
          "extender trained on %d nodes: %d filter, %d prioritize, %d bind (%d bound) in %.1f s%n",
          nodes.size(),
          pending.size(),
          pending.size(),
          scheduler.binds,
          scheduler.bound,
          (System.nanoTime() - started) / 1e9);
    } finally {
      if (extender != null) {
        extender.destroy();
        extender.waitFor();
      }
      api.close();
    }
  }

  /** The CRD, the namespace, and {@value #NODES} nodes with their NodeTopology; their names. */
  private static List<String> generate(KubernetesClient client) throws Exception {
    client.apiextensions().v1().customResourceDefinitions().resource(CrdFile.read()).create();
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("ml").endMetadata().build())
        .create();
    List<String> models = read("demo/index.txt").lines().filter(l -> !l.isBlank()).toList();
    List<String> names = new ArrayList<>(NODES);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> created = new ArrayList<>(NODES);
      for (int i = 0; i < NODES; i++) {
        String name = String.format(Locale.ROOT, "gpu-%05d", i);
        String model = read("demo/" + models.get(i % models.size()) + ".json");
        created.add(pool.submit(() -> create(client, name, model)));
        names.add(name);
      }
      for (Future<?> f : created) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    return names;
  }

  /** One node: its NodeTopology (a bundled model, renamed; status written) and its Node. */
  private static Void create(KubernetesClient client, String name, String model) {
    NodeTopology nt = JSON.unmarshal(model, NodeTopology.class);
    nt.getMetadata().setName(name);
    NodeTopology created = client.resources(NodeTopology.class).resource(nt).create();
    created.setStatus(nt.getStatus());
    client.resources(NodeTopology.class).resource(created).updateStatus();
    String gpus = String.valueOf(nt.getSpec().summary().gpus());
    String hcas = String.valueOf(nt.getSpec().summary().hcas());
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("nvidia.com/gpu.present", "true")
                .endMetadata()
                .withNewStatus()
                .addToCapacity("nvidia.com/gpu", new Quantity(gpus))
                .addToCapacity("rdma/hca", new Quantity(hcas))
                .addToAllocatable("nvidia.com/gpu", new Quantity(gpus))
                .addToAllocatable("rdma/hca", new Quantity(hcas))
                .endStatus()
                .build())
        .create();
    return null;
  }

  /**
   * Pending pods of a training job's workers: 1..8 GPUs, 0..8 HCAs, every alignment and mode. The
   * extender reads a pod to bind from filter's request, not from the API server.
   */
  private static List<Pod> pending(int n) {
    String[] alignments = {"switch", "root-complex", "numa", "none"};
    String[] modes = {"required", "preferred"};
    List<Pod> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String gpus = String.valueOf(1 + i % 8);
      String hcas = String.valueOf((i / 8) % 9);
      Pod pod =
          new PodBuilder()
              .withNewMetadata()
              .withName("train-worker-" + i)
              .withNamespace("ml")
              .withUid(String.format(Locale.ROOT, "00000000-0000-4000-9000-%012d", i))
              .addToLabels("job-name", "train-worker")
              .addToAnnotations("tandem.dev/alignment", alignments[(i / 72) % 4])
              .addToAnnotations("tandem.dev/alignment-mode", modes[(i / 288) % 2])
              .endMetadata()
              .withNewSpec()
              .withSchedulerName("default-scheduler")
              .addNewContainer()
              .withName("trainer")
              .withImage("registry.example.internal/ml/trainer:1")
              .withNewResources()
              .addToLimits("nvidia.com/gpu", new Quantity(gpus))
              .addToLimits("rdma/hca", new Quantity(hcas))
              .addToLimits("memory", new Quantity("256Gi"))
              .addToRequests("cpu", new Quantity("32"))
              .endResources()
              .endContainer()
              .addNewContainer()
              .withName("metrics-exporter")
              .withImage("registry.example.internal/ml/exporter:1")
              .endContainer()
              .endSpec()
              .withNewStatus()
              .withPhase("Pending")
              .endStatus()
              .build();
      out.add(pod);
    }
    return out;
  }

  private static Process start(
      List<String> jvm, Path jar, Path dir, int port, int inspection, MockApiServer api)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvm);
    cmd.addAll(
        List.of(
            "-jar",
            jar.toString(),
            "--host=127.0.0.1",
            "--port=" + port,
            "--inspection-port=" + inspection,
            "--no-leader-election",
            "--insecure-verbs"));
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("extender.log").toFile());
    Map<String, String> env = pb.environment();
    env.remove("JAVA_TOOL_OPTIONS");
    api.pointAt(env);
    return pb.start();
  }

  /** kube-scheduler's side of the protocol, one pod at a time. */
  private static final class Scheduler {
    private final HttpClient http =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final String base;
    private int binds;
    private int bound;

    Scheduler(int port) {
      this.base = "http://127.0.0.1:" + port + PREFIX;
    }

    /** Waits for {@code /readyz} (informers synced), or fails naming the extender's log. */
    void awaitReady(Process extender, Path dir, int inspectionPort) {
      HttpRequest ready =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + inspectionPort + "/readyz"))
              .build();
      await("the extender's /readyz; see " + dir.resolve("extender.log"))
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptionsInstanceOf(IOException.class)
          .failFast(
              "the extender exited; see " + dir.resolve("extender.log"), () -> !extender.isAlive())
          .until(
              () -> http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    }

    void cycle(Pod pod, List<String> nodes) throws Exception {
      JsonObject podJson = new JsonObject(JSON.asJson(pod));
      JsonObject filtered =
          send(
              "/filter",
              new JsonObject()
                  .put("Pod", podJson)
                  .putNull("Nodes")
                  .put("NodeNames", new JsonArray(nodes)));
      JsonArray passed = filtered.getJsonArray("NodeNames", new JsonArray());
      if (passed.isEmpty()) {
        return;
      }
      JsonArray scores =
          new JsonArray(
              send(
                      "/prioritize",
                      new JsonObject()
                          .put("Pod", podJson)
                          .putNull("Nodes")
                          .put("NodeNames", passed))
                  .getJsonArray("items", new JsonArray())
                  .getList());
      String best = passed.getString(0);
      long top = Long.MIN_VALUE;
      for (Object o : scores) {
        JsonObject s = (JsonObject) o;
        if (s.getLong("Score", 0L) > top) {
          top = s.getLong("Score", 0L);
          best = s.getString("Host");
        }
      }
      binds++;
      JsonObject result =
          send(
              "/bind",
              new JsonObject()
                  .put("PodName", pod.getMetadata().getName())
                  .put("PodNamespace", pod.getMetadata().getNamespace())
                  .put("PodUID", pod.getMetadata().getUid())
                  .put("Node", best));
      if (result.getString("Error", "").isEmpty()) {
        bound++;
      }
    }

    private JsonObject send(String verb, JsonObject body) throws Exception {
      HttpResponse<String> r =
          http.send(post(verb, body.encode()), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException(verb + " answered " + r.statusCode() + ": " + r.body());
      }
      String text = r.body().strip();
      return text.startsWith("[")
          ? new JsonObject().put("items", new JsonArray(text))
          : new JsonObject(text);
    }

    private HttpRequest post(String verb, String body) {
      return HttpRequest.newBuilder(URI.create(base + verb))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(body))
          .build();
    }
  }

  private static String read(String resource) {
    try (InputStream in = AotTraining.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
