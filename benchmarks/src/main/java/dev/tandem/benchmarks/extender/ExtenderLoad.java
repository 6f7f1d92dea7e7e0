package dev.tandem.benchmarks.extender;

import dev.tandem.extender.Extender;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterParts;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The extender load harness: for each cluster size, the real extender routes on 127.0.0.1 with an
 * in-memory cluster of that many nodes, driven by a closed-loop client sending what kube-scheduler
 * sends; the floor verb on the same server measures what decoding the request and answering every
 * node costs by itself. Run it with {@code benchmarks/run-extender-load}.
 */
public final class ExtenderLoad {

  private static final String PREFIX = "/scheduler";

  private final LoadOptions options;
  private final Vertx servers;
  private final Vertx clients;
  private final WebClient client;

  private ExtenderLoad(LoadOptions options) {
    this.options = options;
    this.servers = Vertx.vertx();
    this.clients = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    this.client =
        WebClient.create(
            clients,
            new WebClientOptions()
                .setKeepAlive(true)
                .setDecompressionSupported(true)
                .setUserAgentEnabled(false),
            new PoolOptions().setHttp1MaxSize(options.concurrency()));
  }

  public static void main(String[] args) throws Exception {
    LoadOptions options;
    try {
      options = LoadOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(args.length > 0 && (args[0].equals("--help") || args[0].equals("-h")) ? 0 : 2);
      return;
    }
    ExtenderLoad load = new ExtenderLoad(options);
    try {
      load.run();
    } finally {
      load.close();
    }
  }

  private void run() throws Exception {
    System.out.printf(
        "cluster: copies of the bundled real topologies, 30%% of nodes all free, the rest"
            + " with 25/50/75/100%% of GPUs and HCAs allocated (seed %d)%n",
        options.seed());
    System.out.printf(
        "client: %d connections, closed loop, Accept-Encoding: %s, warm-up %d requests per verb,"
            + " then %d requests or %d s per verb in %d interleaved rounds%n%n",
        options.concurrency(),
        options.gzip() ? "gzip" : "identity",
        options.warmup(),
        options.requests(),
        options.cap().toSeconds(),
        options.rounds());
    ResultTable table = new ResultTable();
    for (int size : options.sizes()) {
      measureSize(size, table);
    }
    System.out.println();
    table.print(System.out);
  }

  private void measureSize(int size, ResultTable table) throws Exception {
    long t0 = System.nanoTime();
    ClusterParts cluster = LoadCluster.build(size, options.seed(), options.names());
    long heap = usedHeapMiB();
    System.out.printf(
        "%,d nodes: cluster built in %d ms, heap in use %d MiB, load average %.1f%n",
        size, (System.nanoTime() - t0) / 1_000_000, heap, loadAverage());
    SchedulerRequests requests = new SchedulerRequests(LoadCluster.names(cluster.state()));
    byte[] typical = SchedulerRequests.head(SchedulerRequests.Shape.TYPICAL);
    List<byte[]> mixed =
        SchedulerRequests.Shape.all().stream().map(SchedulerRequests::head).toList();
    IntFunction<Buffer> same = k -> requests.body(typical);
    IntFunction<Buffer> varied = k -> requests.body(mixed.get(k % mixed.size()));
    System.out.printf(
        "  request body %,d bytes (pod %,d bytes)%n",
        requests.body(typical).length(), typical.length);

    HttpServer server = await(start(cluster));
    int port = server.actualPort();
    List<Run> runs =
        List.of(
                new Run("floor", "floor (decode, pass all)", FloorVerb.PATH, same),
                new Run("filter", "filter, same pod", PREFIX + "/filter", same),
                new Run("filter-mixed", "filter, 512 pod shapes", PREFIX + "/filter", varied),
                new Run("prioritize", "prioritize, same pod", PREFIX + "/prioritize", same),
                new Run(
                    "prioritize-mixed",
                    "prioritize, 512 pod shapes",
                    PREFIX + "/prioritize",
                    varied))
            .stream()
            .filter(r -> r.key().equals("floor") || options.verbs().contains(r.key()))
            .toList();
    try {
      for (Run run : runs) {
        warmUp(port, run);
      }
      // Rounds interleave the verbs, so a noisy neighbour weighs on all of them alike.
      ClosedLoop.Phase[] total = new ClosedLoop.Phase[runs.size()];
      int perRound = Math.max(1, options.requests() / options.rounds());
      Duration capPerRound = options.cap().dividedBy(options.rounds());
      double load = 0;
      for (int round = 0; round < options.rounds(); round++) {
        for (int i = 0; i < runs.size(); i++) {
          Run run = runs.get(i);
          ClosedLoop loop =
              new ClosedLoop(
                  client, port, run.path(), run.bodies(), options.concurrency(), options.gzip());
          total[i] = check(run.path(), await(loop.run(perRound, capPerRound))).plus(total[i]);
        }
        load += loadAverage() / options.rounds();
      }
      for (int i = 0; i < runs.size(); i++) {
        ClosedLoop.Phase p = total[i];
        System.out.printf(
            "  %-28s %6d requests  p50 %7.2f ms  p99 %7.2f ms  %8.1f req/s%n",
            runs.get(i).verb(),
            p.answered(),
            p.percentileMillis(50),
            p.percentileMillis(99),
            p.throughput());
        table.add(size, runs.get(i).verb(), p, i == 0, load);
      }
    } finally {
      await(server.close());
    }
  }

  private record Run(String key, String verb, String path, IntFunction<Buffer> bodies) {}

  private void warmUp(int port, Run run) throws Exception {
    if (options.warmup() > 0) {
      ClosedLoop loop =
          new ClosedLoop(
              client, port, run.path(), run.bodies(), options.concurrency(), options.gzip());
      check(run.path(), await(loop.run(options.warmup(), options.cap().dividedBy(2))));
    }
  }

  private Future<HttpServer> start(ClusterParts cluster) {
    ExtenderConfig d = ExtenderConfig.defaults();
    ExtenderConfig config =
        new ExtenderConfig(
            "127.0.0.1",
            0,
            PREFIX,
            null,
            null,
            null,
            true,
            0,
            null,
            null,
            d.defaultPolicy(),
            d.resources(),
            d.assumedTtl(),
            d.bodyLimit(),
            true,
            null,
            false,
            d.leaseNamespace(),
            d.leaseName(),
            "extender-load",
            d.cacheSize(),
            d.nodeClassDefaults(),
            0);
    Router router =
        Extender.routers(servers, config, cluster, new ExtenderMetrics(cluster)).verbs();
    FloorVerb.mount(router, config.bodyLimit());
    // The extender's own server options: HTTP/1.1, compression offered (kube-scheduler accepts
    // gzip);
    // filter, prioritize and the floor answer uncompressed all the same (content-encoding
    // identity).
    return servers
        .createHttpServer(new HttpServerOptions().setCompressionSupported(true))
        .requestHandler(router)
        .listen(config.port(), config.host());
  }

  private static ClosedLoop.Phase check(String path, ClosedLoop.Phase phase) {
    if (phase.errors() > 0) {
      throw new IllegalStateException(
          path + ": " + phase.errors() + " requests failed; first: " + phase.firstError());
    }
    return phase;
  }

  static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static long usedHeapMiB() {
    Runtime r = Runtime.getRuntime();
    System.gc();
    return (r.totalMemory() - r.freeMemory()) >> 20;
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.MINUTES);
  }

  private void close() throws Exception {
    client.close();
    List<Future<Void>> closing = new ArrayList<>(List.of(clients.close(), servers.close()));
    for (Future<Void> f : closing) {
      f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
