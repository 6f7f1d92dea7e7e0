package dev.tandem.benchmarks.extender;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A freshly started extender with and without its AOT cache, alternated in one run: the jar as its
 * own process with the Deployment's JVM options against the fabric8 mock API server (CRUD mode)
 * holding {@code --nodes} GPU nodes ({@link MemoryCluster}), the time from its start to {@code
 * /readyz}, then {@code --requests} kube-scheduler {@code /filter} requests naming every node, one
 * in flight, the 512 pod shapes in turn, each timed; then {@code --warm} more, whose mean is the
 * warm figure. Each bucket's mean is reported against it: warm mean / bucket mean is the share of
 * warm throughput a closed loop gets in that bucket.
 *
 * <pre>
 * benchmarks/run-coldstart [--nodes 1000] [--requests 2000] [--warm 3000] [--rounds 3]
 * </pre>
 */
public final class ColdStart {

  private static final int[] BUCKETS = {100, 400, 1000, 2000};

  /** Held: java.util.logging keeps only weak references to loggers, and forgets their level. */
  private static final Logger LOG = Logger.getLogger("io.fabric8.mockwebserver");

  private ColdStart() {}

  public static void main(String[] args) throws Exception {
    int nodes = 1000;
    int requests = 2000;
    int warm = 3000;
    int rounds = 3;
    Path root = Path.of(".");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--nodes" -> nodes = Integer.parseInt(args[++i]);
        case "--requests" -> requests = Integer.parseInt(args[++i]);
        case "--warm" -> warm = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--root" -> root = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown flag " + args[i]);
      }
    }
    Path jar = root.resolve("scheduler-extender/target/scheduler-extender.jar");
    Path cache = root.resolve("scheduler-extender/target/scheduler-extender.aot").toAbsolutePath();
    if (!Files.isRegularFile(cache)) {
      throw new IllegalStateException(cache + " is missing: build without -Dmaven.test.skip=true");
    }
    List<String> base = new ArrayList<>();
    for (String o :
        ExtenderMemory.jvmOptions(
            Files.readString(root.resolve("manifests/base/deployment-scheduler-extender.yaml")))) {
      if (!o.startsWith("-XX:AOTCache=")) {
        base.add(o);
      }
    }
    List<String> cached = new ArrayList<>(base);
    cached.add("-XX:AOTCache=" + cache);
    LOG.setLevel(Level.WARNING);
    ExtenderMemory.ApiServer api = ExtenderMemory.ApiServer.mock();
    List<String> rows = new ArrayList<>();
    rows.add(header(requests));
    try (KubernetesClient client = api.client()) {
      ExtenderMemory.install(client, root, false);
      List<String> names = new ArrayList<>();
      ExtenderMemory.grow(client, new MemoryCluster(), names, nodes);
      System.out.printf(
          "%d nodes in the mock API server; JVM options %s (+ -XX:AOTCache=%s)%n",
          nodes, base, cache);
      List<byte[]> bodies = bodies(names);
      for (int round = 0; round < rounds; round++) {
        // alternate which goes first: the machine's load drifts within a round
        boolean cacheFirst = round % 2 == 1;
        for (boolean withCache : new boolean[] {cacheFirst, !cacheFirst}) {
          String label = (withCache ? "AOT cache" : "no cache") + ", round " + (round + 1);
          Run r = run(jar, withCache ? cached : base, api, bodies, requests, warm);
          rows.add(r.row(label));
          System.out.println(rows.getLast());
        }
      }
    } finally {
      api.close();
    }
    System.out.println();
    System.out.println(String.join("\n", rows));
  }

  /** The filter bodies of the 512 shapes, each naming every node. */
  private static List<byte[]> bodies(List<String> names) {
    SchedulerRequests requests = new SchedulerRequests(names);
    return SchedulerRequests.Shape.all().stream()
        .map(s -> requests.body(SchedulerRequests.head(s)).getBytes())
        .toList();
  }

  private static Run run(
      Path jar,
      List<String> jvm,
      ExtenderMemory.ApiServer api,
      List<byte[]> bodies,
      int requests,
      int warm)
      throws Exception {
    Path dir = Files.createTempDirectory("extender-coldstart");
    long t0 = System.nanoTime();
    try (ExtenderProcess p = ExtenderProcess.start(jar, jvm, api.environment(), dir)) {
      if (!p.awaitReady(Duration.ofMinutes(5))) {
        throw new IllegalStateException("the extender was not ready; see " + p.log());
      }
      double ready = (System.nanoTime() - t0) / 1e9;
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      URI filter = URI.create("http://127.0.0.1:" + p.port() + "/scheduler/filter");
      long[] ns = new long[requests + warm];
      for (int i = 0; i < ns.length; i++) {
        HttpRequest request =
            HttpRequest.newBuilder(filter)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(bodies.get(i % bodies.size())))
                .build();
        long s = System.nanoTime();
        HttpResponse<Void> r = http.send(request, HttpResponse.BodyHandlers.discarding());
        ns[i] = System.nanoTime() - s;
        if (r.statusCode() != 200) {
          throw new IllegalStateException("filter answered " + r.statusCode() + "; see " + p.log());
        }
      }
      return new Run(ready, ns, requests, p.rssKib());
    }
  }

  private static String header(int requests) {
    StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%-22s %8s", "", "ready s"));
    int from = 0;
    for (int b : BUCKETS) {
      if (b <= requests) {
        h.append(String.format(Locale.ROOT, " %19s", (from + 1) + "-" + b + " ms (x)"));
        from = b;
      }
    }
    return h.append(String.format(Locale.ROOT, " %9s %8s", "warm ms", "RSS MiB")).toString();
  }

  /** One start: time to ready, every request's latency, where the warm ones begin, the RSS. */
  private record Run(double readySeconds, long[] ns, int requests, long rssKib) {

    double meanMs(int from, int to) {
      long sum = 0;
      for (int i = from; i < to; i++) {
        sum += ns[i];
      }
      return sum / 1e6 / (to - from);
    }

    /** Each bucket's mean latency and, in brackets, warm mean / bucket mean. */
    String row(String label) {
      double warm = meanMs(requests, ns.length);
      StringBuilder out =
          new StringBuilder(String.format(Locale.ROOT, "%-22s %8.1f", label, readySeconds));
      int from = 0;
      for (int b : BUCKETS) {
        if (b <= requests) {
          double m = meanMs(from, b);
          out.append(String.format(Locale.ROOT, " %11.2f (%4.2f)", m, warm / m));
          from = b;
        }
      }
      return out.append(String.format(Locale.ROOT, " %9.2f %8.0f", warm, rssKib / 1024.0))
          .toString();
    }
  }
}
