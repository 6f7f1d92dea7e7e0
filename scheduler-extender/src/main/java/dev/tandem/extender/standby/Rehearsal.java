package dev.tandem.extender.standby;

import dev.tandem.api.ResourceNames;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.Readiness;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standby's rehearsal of kube-scheduler's cycle. While this replica's informers are synced and
 * another replica holds the lease, it runs up to {@code cycles} cycles, each a filter request over
 * up to {@value #MAX_NAMES} of its own nodes, a prioritize request over those that passed and a
 * bind on the best of them that holds and sends nothing ({@link BindRehearsal}); the requests are
 * sent as kube-scheduler sends them: over a socket, with the verbs port's TLS and HTTP version
 * (HTTP/2 over TLS where the verbs are served so), to a listener on loopback that serves filter and
 * prioritize through the very decoder, verb instances and answer writer of the verbs port. By then
 * the JIT has compiled what the leader's requests run, the HTTP server's and the TLS engine's code
 * included, so a standby that takes the lease answers at its warm speed from its first request.
 *
 * <p>It changes nothing another replica or kube-scheduler could see: the rehearsal's routes
 * remember pods and count metrics in their own instances, which no one reads; its bind plans
 * without holding devices and prepares the Binding without sending it, and its only call to the API
 * server is a read; there is no preempt. What it leaves behind is what any filter leaves: the
 * verdicts the verbs memoise per node state and pod shape, right for any pod of that shape. The
 * listener takes no client certificate (it answers what the verbs port would answer to
 * kube-scheduler, about this replica's view of the cluster) and is closed when the rehearsal ends.
 *
 * <p>Its CPU is bounded: one cycle at a time, and after each a pause as long as the cycle took, so
 * it takes about half a core at most; after {@code cycles} cycles it stops for good (compiled code
 * stays: the JVM drops it only with its classes). It waits while this replica leads or has not
 * synced, and goes on where it stopped if the replica loses the lease again.
 */
public final class Rehearsal {

  private static final Logger LOG = LoggerFactory.getLogger(Rehearsal.class);

  /** Node names per request: kube-scheduler sends the nodes its own filters passed. */
  static final int MAX_NAMES = 1000;

  /** How long a replica that leads, or has not synced, waits before it looks again. */
  static final long LOOK_AGAIN_MILLIS = 1000;

  /** Cycles between two readings of the node list. */
  private static final int NAMES_EVERY = 64;

  private final Vertx vertx;
  private final ClusterState state;
  private final Readiness readiness;
  private final ExtenderMetrics metrics;
  private final Handler<HttpServerRequest> routes;
  private final Listener listener;
  private final String prefix;
  private final int cycles;
  private final RehearsalPods pods;
  private final BindRehearsal bind;
  private List<String> names = List.of();
  private Future<HttpServer> server;
  private HttpClient client;
  private volatile int done;
  private long began;

  /**
   * How the rehearsal listener and its client speak: as the verbs port does, without a client
   * certificate.
   *
   * @param server the verbs port's options, client authentication off
   * @param client options that reach it: TLS trusting it and HTTP/2 when the server offers them
   */
  public record Listener(HttpServerOptions server, HttpClientOptions client) {

    /**
     * The verbs port's options, without client authentication; a client that trusts this in-process
     * listener (it sends nothing secret) and speaks HTTP/2 where the port offers it by ALPN.
     */
    public static Listener like(HttpServerOptions verbs) {
      HttpServerOptions server = new HttpServerOptions(verbs).setClientAuth(ClientAuth.NONE);
      if (!verbs.isSsl()) {
        return new Listener(server, new HttpClientOptions());
      }
      HttpClientOptions client =
          new HttpClientOptions().setSsl(true).setTrustAll(true).setVerifyHost(false);
      if (verbs.isUseAlpn()) {
        client.setUseAlpn(true).setProtocolVersion(HttpVersion.HTTP_2);
      }
      return new Listener(server, client);
    }
  }

  /**
   * @param routes filter and prioritize as the verbs port serves them, over pods and metrics of
   *     their own
   * @param prefix the verbs' URL prefix
   * @param cycles how many cycles to run in all; 0 runs none
   * @param resources the GPU and HCA resource names the rehearsal's pods ask for
   * @param bind the bind of each cycle, on the node scored best
   */
  public Rehearsal(
      Vertx vertx,
      ClusterState state,
      Readiness readiness,
      ExtenderMetrics metrics,
      Handler<HttpServerRequest> routes,
      Listener listener,
      String prefix,
      int cycles,
      ResourceNames resources,
      BindRehearsal bind) {
    this.vertx = vertx;
    this.state = state;
    this.readiness = readiness;
    this.metrics = metrics;
    this.routes = routes;
    this.listener = listener;
    this.prefix = prefix.equals("/") ? "" : prefix;
    this.cycles = cycles;
    this.pods = new RehearsalPods(resources);
    this.bind = bind;
  }

  /** Starts looking for the moment to rehearse; returns at once. */
  public void start() {
    vertx.runOnContext(v -> next());
  }

  /** Cycles run so far. */
  public int done() {
    return done;
  }

  private void next() {
    if (done >= cycles) {
      return;
    }
    if (!readiness.synced() || readiness.leader() || state.size() == 0) {
      vertx.setTimer(LOOK_AGAIN_MILLIS, id -> next());
      return;
    }
    if (done == 0) {
      began = System.nanoTime();
      LOG.info(
          "standby: rehearsing kube-scheduler's filter, prioritize and bind ({} cycles over {} nodes)"
              + " while another replica holds the lease",
          cycles,
          state.size());
    }
    long start = System.nanoTime();
    int n = done;
    cycle(n)
        .onSuccess(passed -> cycled(start))
        .onFailure(
            e -> {
              LOG.warn(
                  "standby: rehearsal cycle {} failed; the rehearsal stops and this replica will"
                      + " start cold if it takes the lease (please report this)",
                  n,
                  e);
              close();
            });
  }

  private void cycled(long start) {
    done++;
    metrics.rehearsed();
    if (done == cycles) {
      LOG.info(
          "standby: rehearsal done, {} cycles in {} s; its verbs are compiled",
          cycles,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began));
      close();
      return;
    }
    long spent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    vertx.setTimer(Math.max(1, spent), id -> next());
  }

  /**
   * One filter, prioritize and bind for the {@code n}th rehearsal pod; how many nodes passed.
   * Called on one Vert.x context (the rehearsal's timers'), as its client's connection pool
   * expects.
   */
  Future<Integer> cycle(int n) {
    if (n % NAMES_EVERY == 0 || names.isEmpty()) {
      names = state.nodes().stream().map(NodeEntry::name).toList();
    }
    JsonObject pod = pods.pod(n);
    return post("/filter", body(pod, window(names, n)))
        .compose(
            answer -> {
              JsonArray passed = answer.toJsonObject().getJsonArray("NodeNames", new JsonArray());
              if (passed.isEmpty()) {
                return Future.succeededFuture(0);
              }
              List<String> named = new ArrayList<>();
              passed.forEach(name -> named.add((String) name));
              return post("/prioritize", body(pod, named))
                  .compose(scores -> bindOnBest(n, pod, scores))
                  .map(planned -> passed.size());
            });
  }

  private Future<Boolean> bindOnBest(int n, JsonObject pod, Buffer scores) {
    String node = best(scores);
    return node == null ? Future.succeededFuture(false) : bind.rehearse(n, pod, node);
  }

  /** The host of the highest score in a HostPriorityList; null for an empty list. */
  static String best(Buffer scores) {
    JsonArray hosts = scores.toJsonArray();
    String best = null;
    long top = Long.MIN_VALUE;
    for (int i = 0; i < hosts.size(); i++) {
      JsonObject host = hosts.getJsonObject(i);
      long score = host.getLong("Score", 0L);
      if (best == null || score > top) {
        best = host.getString("Host");
        top = score;
      }
    }
    return best;
  }

  private Future<Buffer> post(String verb, Buffer body) {
    return listening()
        .compose(p -> client.request(HttpMethod.POST, p, "127.0.0.1", prefix + verb))
        .compose(req -> req.putHeader("content-type", "application/json").send(body))
        .compose(
            resp ->
                resp.statusCode() == 200
                    ? resp.body()
                    : Future.failedFuture(
                        "the rehearsal's " + verb + " answered HTTP " + resp.statusCode()));
  }

  /** The listener's port, started on the first call. */
  private Future<Integer> listening() {
    if (server == null) {
      client = vertx.createHttpClient(listener.client());
      server =
          vertx.createHttpServer(listener.server()).requestHandler(routes).listen(0, "127.0.0.1");
    }
    return server.map(HttpServer::actualPort);
  }

  private void close() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.onSuccess(HttpServer::close);
    }
  }

  /** Up to {@value #MAX_NAMES} names, a different window each cycle. */
  static List<String> window(List<String> names, int n) {
    if (names.size() <= MAX_NAMES) {
      return names;
    }
    int from = (int) ((long) n * MAX_NAMES % names.size());
    List<String> out = new ArrayList<>(MAX_NAMES);
    for (int i = 0; i < MAX_NAMES; i++) {
      out.add(names.get((from + i) % names.size()));
    }
    return out;
  }

  private static Buffer body(JsonObject pod, List<String> names) {
    return new JsonObject()
        .put("Pod", pod)
        .putNull("Nodes")
        .put("NodeNames", new JsonArray(names))
        .toBuffer();
  }
}
