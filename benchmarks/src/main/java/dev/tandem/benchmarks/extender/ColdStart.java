package dev.tandem.benchmarks.extender;

import dev.tandem.fixtures.kube.MockApiServer;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A freshly started extender with and without its AOT cache, alternated in one run: the jar as its
 * own process with the Deployment's JVM options against the fabric8 mock API server (CRUD mode)
 * holding {@code --nodes} GPU nodes ({@link MemoryCluster}), the time from its start to {@code
 * /readyz}, then {@code --requests} kube-scheduler {@code /filter} requests naming every node, one
 * in flight, the 512 pod shapes in turn, each timed; then {@code --warm} more, whose mean is the
 * warm figure. Each bucket's mean is reported against it: warm mean / bucket mean is the share of
 * warm throughput a closed loop gets in that bucket.
 *
 * <p>With {@code --standby}: the replica that takes over, and beside it a fresh start as above, all
 * with the AOT cache. Each of the two standbys starts as a standby while a Lease names another
 * holder, waits until its informers synced and then either rehearses {@code --rehearsal-cycles}
 * cycles (the shipped default) or, rehearsal off, idles as long as the rehearsed one of its round
 * took; then the Lease is deleted, as a leaving leader releases it, and the requests start once it
 * is ready. "ready s" is then the time from the Lease's release to {@code /readyz}.
 *
 * <pre>
 * benchmarks/run-coldstart [--nodes 1000] [--requests 2000] [--warm 3000] [--rounds 3]
 * benchmarks/run-coldstart --standby [--rehearsal-cycles 2000] ...
 * </pre>
 */
public final class ColdStart {

  private static final int[] BUCKETS = {100, 400, 1000, 2000};

  private static final String LEASE = "tandem-coldstart";

  /**
   * The first bucket, after which the extender's own filter timer is read: its mean is the time
   * inside the route (decode, verb, answer), the rest of the client's time is HTTP and the socket.
   */
  private static final int FIRST = 100;

  private ColdStart() {}

  public static void main(String[] args) throws Exception {
    int nodes = 1000;
    int requests = 2000;
    int warm = 3000;
    int rounds = 3;
    boolean standby = false;
    int rehearsal = 2000;
    Path root = Path.of(".");
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--nodes" -> nodes = Integer.parseInt(args[++i]);
        case "--requests" -> requests = Integer.parseInt(args[++i]);
        case "--warm" -> warm = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--root" -> root = Path.of(args[++i]);
        case "--standby" -> standby = true;
        case "--rehearsal-cycles" -> rehearsal = Integer.parseInt(args[++i]);
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
    MockApiServer.quietRequests();
    List<String> rows = new ArrayList<>();
    rows.add(header(requests));
    try (ExtenderMemory.ApiServer api = ExtenderMemory.ApiServer.mock()) {
      KubernetesClient client = api.client();
      ExtenderMemory.install(client, root, false);
      List<String> names = new ArrayList<>();
      ExtenderMemory.grow(client, new MemoryCluster(), names, nodes);
      System.out.printf(
          "%d nodes in the mock API server; JVM options %s (+ -XX:AOTCache=%s)%n",
          nodes, base, cache);
      Load load = new Load(bodies(names), requests, warm);
      warmOwnClient(load);
      for (int round = 0; round < rounds; round++) {
        if (standby) {
          Standby rehearsed = new Standby(client, nodes, rehearsal, 0);
          Run r = run(jar, cached, api, load, rehearsed);
          rows.add(r.row("rehearsed, round " + (round + 1)));
          System.out.println(rows.getLast());
          Run c = run(jar, cached, api, load, new Standby(client, nodes, 0, rehearsed.waited));
          rows.add(c.row("not rehearsed, round " + (round + 1)));
          System.out.println(rows.getLast());
          Run f = run(jar, cached, api, load, null);
          rows.add(f.row("fresh start, round " + (round + 1)));
          System.out.println(rows.getLast());
          continue;
        }
        // alternate which goes first: the machine's load drifts within a round
        boolean cacheFirst = round % 2 == 1;
        for (boolean withCache : new boolean[] {cacheFirst, !cacheFirst}) {
          String label = (withCache ? "AOT cache" : "no cache") + ", round " + (round + 1);
          Run r = run(jar, withCache ? cached : base, api, load, null);
          rows.add(r.row(label));
          System.out.println(rows.getLast());
        }
      }
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

  /** The requests of a run: the bodies in turn, the first {@code requests}, then {@code warm}. */
  private record Load(List<byte[]> bodies, int requests, int warm) {}

  /**
   * A start as the standby that takes over: synced, then {@code cycles} rehearsal cycles or, with
   * none, {@code idleMillis} of waiting; {@link #waited} is what it spent between the two.
   */
  private static final class Standby {
    private final KubernetesClient client;
    private final int nodes;
    private final int cycles;
    private final long idleMillis;
    private long waited;

    Standby(KubernetesClient client, int nodes, int cycles, long idleMillis) {
      this.client = client;
      this.nodes = nodes;
      this.cycles = cycles;
      this.idleMillis = idleMillis;
    }

    /** The flags of a replica on the benchmark's Lease, with its rehearsal. */
    List<String> flags() {
      return List.of(
          "--lease-namespace=default",
          "--lease-name=" + LEASE,
          "--identity=coldstart-standby",
          "--standby-rehearsal-cycles=" + cycles);
    }

    /** Another replica holds the Lease, for an hour unless it releases it. */
    void holdLease() {
      ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
      client
          .leases()
          .inNamespace("default")
          .resource(
              new LeaseBuilder()
                  .withNewMetadata()
                  .withName(LEASE)
                  .withNamespace("default")
                  .endMetadata()
                  .withNewSpec()
                  .withHolderIdentity("old-leader")
                  .withLeaseDurationSeconds(3600)
                  .withAcquireTime(now)
                  .withRenewTime(now)
                  .endSpec()
                  .build())
          .createOr(NonDeletingOperation::update);
    }

    /** Waits until the replica synced and rehearsed (or idled), then releases the Lease. */
    void takeOver(ExtenderProcess p) throws InterruptedException {
      await(p, "tandem_extender_nodes", nodes);
      long synced = System.nanoTime();
      if (cycles > 0) {
        await(p, "tandem_extender_standby_rehearsal_cycles_total", cycles);
      } else {
        TimeUnit.MILLISECONDS.sleep(idleMillis);
      }
      waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - synced);
      client.leases().inNamespace("default").withName(LEASE).delete();
    }

    private static void await(ExtenderProcess p, String metric, double value)
        throws InterruptedException {
      if (!p.awaitMetric(metric, value, Duration.ofMinutes(10))) {
        throw new IllegalStateException(metric + " never reached " + value + "; see " + p.log());
      }
    }
  }

  /** One start, fresh or as a standby that takes over ({@code standby} not null). */
  private static Run run(
      Path jar, List<String> jvm, ExtenderMemory.ApiServer api, Load load, Standby standby)
      throws Exception {
    Path dir = Files.createTempDirectory("extender-coldstart");
    if (standby != null) {
      standby.holdLease();
    }
    long t0 = System.nanoTime();
    try (ExtenderProcess p =
        standby == null
            ? ExtenderProcess.start(jar, jvm, api.environment(), dir)
            : ExtenderProcess.start(jar, jvm, api.environment(), dir, standby.flags())) {
      if (standby != null) {
        standby.takeOver(p);
        t0 = System.nanoTime();
      }
      if (!p.awaitReady(Duration.ofMinutes(5))) {
        throw new IllegalStateException("the extender was not ready; see " + p.log());
      }
      double ready = (System.nanoTime() - t0) / 1e9;
      long[] first = send(p.port(), load.bodies(), 0, FIRST, p.log());
      double handled =
          p.metric("tandem_extender_request_seconds_sum", "verb=\"filter\"") * 1e3 / FIRST;
      long[] rest =
          send(p.port(), load.bodies(), FIRST, load.requests() + load.warm() - FIRST, p.log());
      long[] ns = new long[first.length + rest.length];
      System.arraycopy(first, 0, ns, 0, first.length);
      System.arraycopy(rest, 0, ns, first.length, rest.length);
      return new Run(ready, ns, load.requests(), p.rssKib(), handled);
    }
  }

  /**
   * Warms this process's own HTTP client on a loopback server that answers at once, so that no
   * run's first requests carry the benchmark's JIT warm-up instead of the extender's.
   */
  private static void warmOwnClient(Load load) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      String answer = "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{},\"Error\":\"\"}";
      HttpServer server =
          vertx
              .createHttpServer()
              .requestHandler(req -> req.body().onComplete(b -> req.response().end(answer)))
              .listen(0, "127.0.0.1")
              .toCompletionStage()
              .toCompletableFuture()
              .get();
      send(server.actualPort(), load.bodies(), 0, load.requests() + load.warm(), null);
    } finally {
      vertx.close();
    }
  }

  /**
   * {@code n} filter requests, the bodies in turn from the {@code from}th, one in flight; each
   * one's latency in ns.
   */
  private static long[] send(int port, List<byte[]> bodies, int from, int n, Path log)
      throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    URI filter = URI.create("http://127.0.0.1:" + port + "/scheduler/filter");
    long[] ns = new long[n];
    for (int i = 0; i < ns.length; i++) {
      HttpRequest request =
          HttpRequest.newBuilder(filter)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofByteArray(bodies.get((from + i) % bodies.size())))
              .build();
      long s = System.nanoTime();
      HttpResponse<Void> r = http.send(request, HttpResponse.BodyHandlers.discarding());
      ns[i] = System.nanoTime() - s;
      if (r.statusCode() != 200) {
        throw new IllegalStateException("filter answered " + r.statusCode() + "; see " + log);
      }
    }
    return ns;
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
    return h.append(
            String.format(
                Locale.ROOT,
                " %9s %14s %9s %8s",
                "first ms",
                "route 1-" + FIRST + " ms",
                "warm ms",
                "RSS MiB"))
        .toString();
  }

  /**
   * One start: time to ready, every request's latency, where the warm ones begin, the RSS, and the
   * mean time inside the extender's filter route over the first {@link #FIRST} requests.
   */
  private record Run(
      double readySeconds, long[] ns, int requests, long rssKib, double handledFirstMs) {

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
      return out.append(
              String.format(
                  Locale.ROOT,
                  " %9.1f %14.2f %9.2f %8.0f",
                  ns[0] / 1e6,
                  handledFirstMs,
                  warm,
                  rssKib / 1024.0))
          .toString();
    }
  }
}
