package dev.tandem.benchmarks.extender;

import dev.tandem.api.crd.NodeTopology;
import dev.tandem.fixtures.kube.MockApiServer;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The extender's memory at 1,000, 5,000 and 15,000 nodes: the fabric8 mock API server (CRUD mode)
 * holds the cluster's Nodes, NodeTopologies (the bundled real servers in turn, each node with ids
 * of its own) and assigned pods; each extender build (a checkout: its jar and its Deployment's JVM
 * options and memory limit, on the JDK of its release) runs as its own process against it, the
 * builds in turn at each size (the order reversed at every other size). After the informers synced:
 * the live heap after a full GC, the top of the class histogram, Strings, RSS. Then a closed-loop
 * filter load (kube-scheduler's request naming every node) for a while: the share of time in GC,
 * full GCs and the longest pause.
 *
 * <p>Usage: {@code ExtenderMemory [--sizes 1000,5000,15000] [--load-seconds 60] [--top 12]
 * [--variant 'JVM OPTIONS']… ROOT=JAVA_HOME…} where each ROOT is a checkout with {@code
 * scheduler-extender/target/scheduler-extender.jar} and JAVA_HOME the JDK it runs on (whose jcmd
 * and jstat read it); each {@code --variant} runs the last ROOT once more with those options after
 * its Deployment's. {@code benchmarks/run-extender-memory} picks each checkout's JDK.
 */
public final class ExtenderMemory {

  private static final Pattern TOOL_OPTIONS =
      Pattern.compile("name: JAVA_TOOL_OPTIONS\\s+value: \"([^\"]+)\"");
  private static final Pattern LIMIT = Pattern.compile("limits:\\s+memory: (\\d+)Mi");

  private ExtenderMemory() {}

  public static void main(String[] args) throws Exception {
    List<Integer> sizes = List.of(1000, 5000, 15000);
    int loadSeconds = 60;
    int top = 12;
    List<Build> builds = new ArrayList<>();
    List<String> variants = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--sizes" ->
            sizes = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
        case "--load-seconds" -> loadSeconds = Integer.parseInt(args[++i]);
        case "--top" -> top = Integer.parseInt(args[++i]);
        case "--variant" -> variants.add(args[++i]);
        default -> builds.add(Build.parse(args[i]));
      }
    }
    if (builds.isEmpty()) {
      throw new IllegalArgumentException("name at least one checkout (ROOT=JAVA_HOME) to measure");
    }
    Build last = builds.getLast();
    variants.forEach(v -> builds.add(last.with(v)));
    List<String> table = new ArrayList<>();
    List<Result> results = new ArrayList<>();
    Set<Build> failed = new HashSet<>();
    table.add(Result.HEADER);
    MockApiServer.quietRequests();
    String kubeconfig = System.getenv("KUBECONFIG");
    try (ApiServer api = kubeconfig == null ? ApiServer.mock() : ApiServer.real(kubeconfig)) {
      KubernetesClient client = api.client();
      MemoryCluster cluster = new MemoryCluster();
      install(client, builds.getFirst().root(), api.server() == null);
      List<String> names = new ArrayList<>();
      List<Build> order = new ArrayList<>(builds);
      for (int n : sizes.stream().sorted().toList()) {
        long t0 = System.nanoTime();
        grow(client, cluster, names, n);
        System.out.printf(
            Locale.ROOT,
            "%d nodes in the API server after %.0f s more%n",
            n,
            (System.nanoTime() - t0) / 1e9);
        for (Build build : order) {
          if (failed.contains(build)) {
            table.add(
                Result.failed(
                        build.name(),
                        build.name() + " (" + n + " nodes)",
                        "failed at a smaller size",
                        List.of())
                    .row());
            continue;
          }
          Result r = measure(build, api.environment(), names, loadSeconds);
          if (r.histogram() == null) {
            failed.add(build);
          }
          System.out.println(r.histogram(top));
          table.add(r.row());
          results.add(r);
          System.out.println(String.join("\n", table));
        }
        // the machine's load drifts: no build always goes first
        Collections.reverse(order);
      }
    }
    System.out.println();
    System.out.println(String.join("\n", table));
    System.out.println();
    System.out.println(marginal(results));
  }

  /**
   * One extender to measure: a checkout, the JDK it runs on, and options after its Deployment's.
   */
  record Build(Path root, Path javaHome, List<String> extraOptions) {

    /** {@code ROOT=JAVA_HOME}. */
    static Build parse(String arg) {
      int eq = arg.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException(
            arg + ": name a checkout as ROOT=JAVA_HOME (benchmarks/run-extender-memory does)");
      }
      return new Build(Path.of(arg.substring(0, eq)), Path.of(arg.substring(eq + 1)), List.of());
    }

    Build with(String options) {
      return new Build(root, javaHome, List.of(options.trim().split("\\s+")));
    }

    String name() {
      String dir = root.getFileName().toString();
      return extraOptions.isEmpty() ? dir : dir + " " + String.join(" ", extraOptions);
    }
  }

  /**
   * Where the cluster's objects live: the kube-apiserver of {@code $KUBECONFIG} (run under {@code
   * e2e/control-plane}), else a fabric8 mock API server in CRUD mode; a client of it, and the
   * environment that points an extender process at it.
   */
  record ApiServer(MockApiServer server, KubernetesClient client, Map<String, String> environment)
      implements AutoCloseable {

    static ApiServer mock() {
      MockApiServer mock = MockApiServer.crud();
      Map<String, String> environment = new HashMap<>();
      mock.pointAt(environment);
      return new ApiServer(mock, mock.client(), Map.copyOf(environment));
    }

    static ApiServer real(String kubeconfig) {
      return new ApiServer(
          null, new KubernetesClientBuilder().build(), Map.of("KUBECONFIG", kubeconfig));
    }

    /** Closes the client, and stops the mock server if there is one. */
    @Override
    public void close() {
      if (server != null) {
        server.close();
      } else {
        client.close();
      }
    }
  }

  /**
   * Each build's live heap per node beyond its smallest size: what one more node costs, without the
   * fixed part (classes, Vert.x, fabric8, caches).
   */
  static String marginal(List<Result> results) {
    StringBuilder out = new StringBuilder("live heap per additional node:\n");
    Map<String, Result> smallest = new LinkedHashMap<>();
    for (Result r : results) {
      if (r.histogram() == null) {
        continue;
      }
      Result first = smallest.putIfAbsent(r.build(), r);
      if (first != null) {
        out.append(
            String.format(
                Locale.ROOT,
                "  %-40s %6d -> %6d nodes: %8d bytes/node%n",
                r.build(),
                first.nodes(),
                r.nodes(),
                (r.histogram().totalBytes() - first.histogram().totalBytes())
                    / (r.nodes() - first.nodes())));
      }
    }
    return out.toString();
  }

  /** Installs the CRD and the namespaces of the pods. */
  static void install(KubernetesClient client, Path root, boolean awaitEstablished)
      throws IOException {
    try (InputStream in =
        Files.newInputStream(root.resolve("manifests/crd/nodetopologies.tandem.dev.yaml"))) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(Serialization.unmarshal(in, CustomResourceDefinition.class))
          .createOr(NonDeletingOperation::update);
    }
    if (awaitEstablished) {
      // the mock serves a CRD's resources at once, and sets no condition
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(NodeTopology.CRD_NAME)
          .waitUntilCondition(
              c ->
                  c.getStatus() != null
                      && c.getStatus().getConditions().stream()
                          .anyMatch(
                              x ->
                                  "Established".equals(x.getType())
                                      && "True".equals(x.getStatus())),
              1,
              TimeUnit.MINUTES);
    }
    for (String ns : List.of("ml", "tandem-system")) {
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .createOr(NonDeletingOperation::update);
    }
  }

  /** Creates the objects of nodes {@code names.size()} to {@code n - 1}, and adds their names. */
  static void grow(KubernetesClient client, MemoryCluster cluster, List<String> names, int n)
      throws Exception {
    Random random = new Random(20 + names.size());
    List<NodeTopology> topologies = new ArrayList<>(n);
    int from = names.size();
    for (int i = from; i < n; i++) {
      topologies.add(cluster.topology(i, random));
      names.add(cluster.nodeName(i));
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = from; i < n; i++) {
        int node = i;
        done.add(
            pool.submit(
                () -> {
                  NodeTopology nt = topologies.get(node - from);
                  client.nodes().resource(cluster.node(node, nt)).create();
                  NodeTopology created = client.resources(NodeTopology.class).resource(nt).create();
                  // the API server drops a new object's status; the agent writes it on its own
                  created.setStatus(nt.getStatus());
                  client.resources(NodeTopology.class).resource(created).updateStatus();
                  cluster
                      .pods(node, nt)
                      .forEach(
                          p ->
                              client
                                  .pods()
                                  .inNamespace(p.getMetadata().getNamespace())
                                  .resource(p)
                                  .create());
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  private static Result measure(
      Build b, Map<String, String> apiServer, List<String> names, int loadSeconds)
      throws Exception {
    Path jar = b.root().resolve("scheduler-extender/target/scheduler-extender.jar");
    String deployment =
        Files.readString(b.root().resolve("manifests/base/deployment-scheduler-extender.yaml"));
    List<String> jvm = new ArrayList<>();
    for (String o : jvmOptions(deployment)) {
      // the cache is a path in the image, and a start-up matter (ColdStart)
      if (!o.startsWith("-XX:AOTCache=")) {
        jvm.add(o);
      }
    }
    jvm.addAll(b.extraOptions());
    Path dir = Files.createTempDirectory("extender-memory");
    String build = b.name();
    String label = build + " (" + names.size() + " nodes)";
    System.out.println(
        label + ": " + b.javaHome() + "/bin/java " + String.join(" ", jvm) + "; logs in " + dir);
    try (ExtenderProcess p = ExtenderProcess.start(b.javaHome(), jar, jvm, apiServer, dir)) {
      long t0 = System.nanoTime();
      if (!p.awaitReady(Duration.ofMinutes(10))) {
        return Result.failed(
            build, label, p.ranOutOfMemory() ? "OutOfMemoryError" : "not ready", jvm);
      }
      double syncSeconds = (System.nanoTime() - t0) / 1e9;
      Histogram h = p.histogram();
      long rss = p.rssKib();
      Load load = load(p, names, loadSeconds);
      if (!p.alive()) {
        return Result.failed(build, label, p.ranOutOfMemory() ? "OutOfMemoryError" : "died", jvm);
      }
      return new Result(build, label, names.size(), syncSeconds, h, rss, p.peakRssKib(), load, jvm);
    }
  }

  /** The JAVA_TOOL_OPTIONS of the Deployment, with its memory limit as the JVM's RAM. */
  static List<String> jvmOptions(String deployment) {
    Matcher options = TOOL_OPTIONS.matcher(deployment);
    Matcher limit = LIMIT.matcher(deployment);
    if (!options.find() || !limit.find()) {
      throw new IllegalArgumentException(
          "the extender's Deployment names no JAVA_TOOL_OPTIONS value or memory limit in Mi");
    }
    List<String> out = new ArrayList<>(Arrays.asList(options.group(1).split(" ")));
    out.add("-XX:MaxRAM=" + limit.group(1) + "m");
    return out;
  }

  /** A closed loop of filter requests naming every node, one in flight, for {@code seconds}. */
  private static Load load(ExtenderProcess p, List<String> names, int seconds) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    byte[] body =
        new SchedulerRequests(names)
            .body(SchedulerRequests.head(SchedulerRequests.Shape.TYPICAL))
            .getBytes();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p.port() + "/scheduler/filter"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    int logLine = p.gcLogLineCount();
    ExtenderProcess.GcTimes before = p.gcTimes();
    long t0 = System.nanoTime();
    long end = t0 + seconds * 1_000_000_000L;
    int answered = 0;
    while (System.nanoTime() < end && p.alive()) {
      try {
        HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200) {
          throw new IllegalStateException("filter answered " + r.statusCode());
        }
        answered++;
      } catch (IOException e) {
        break;
      }
    }
    double wall = (System.nanoTime() - t0) / 1e9;
    if (!p.alive()) {
      return new Load(answered, wall, 0, 0, 0);
    }
    ExtenderProcess.GcTimes after = p.gcTimes();
    return new Load(
        answered,
        wall,
        (after.totalSeconds() - before.totalSeconds()) / wall,
        (int) (after.fullCount() - before.fullCount()),
        p.longestPauseMs(logLine));
  }

  /** What the filter load did: answers, seconds, GC share of the time, full GCs, longest pause. */
  record Load(int answered, double seconds, double gcShare, int fullGcs, double longestPauseMs) {}

  /** One build at one size. */
  record Result(
      String build,
      String label,
      int nodes,
      double syncSeconds,
      Histogram histogram,
      long rssKib,
      long peakRssKib,
      Load load,
      List<String> jvm) {

    static final String HEADER =
        String.format(
            Locale.ROOT,
            "%-52s %9s %9s %10s %8s %9s %8s %9s %8s %6s %9s",
            "build (nodes)",
            "sync s",
            "live MiB",
            "bytes/node",
            "Strings",
            "RSS MiB",
            "peak MiB",
            "filter/s",
            "GC %",
            "fullGC",
            "max ms");

    static Result failed(String build, String label, String why, List<String> jvm) {
      return new Result(build, label + ": " + why, -1, 0, null, 0, 0, null, jvm);
    }

    String row() {
      if (histogram == null) {
        return String.format(Locale.ROOT, "%-52s %s", label, "—");
      }
      return String.format(
          Locale.ROOT,
          "%-52s %9.1f %9.1f %10d %8d %9.1f %8.1f %9.1f %8.2f %6d %9.1f",
          label,
          syncSeconds,
          histogram.totalBytes() / 1048576.0,
          histogram.totalBytes() / nodes,
          histogram.instances("java.lang.String"),
          rssKib / 1024.0,
          peakRssKib / 1024.0,
          load.answered() / load.seconds(),
          100 * load.gcShare(),
          load.fullGcs(),
          load.longestPauseMs());
    }

    String histogram(int top) {
      if (histogram == null) {
        return label;
      }
      StringBuilder out = new StringBuilder(label + ", live objects by class:\n");
      for (Histogram.Row r : histogram.top(top)) {
        out.append(
            String.format(Locale.ROOT, "  %10d %12d  %s%n", r.instances(), r.bytes(), r.name()));
      }
      return out.toString();
    }
  }
}
