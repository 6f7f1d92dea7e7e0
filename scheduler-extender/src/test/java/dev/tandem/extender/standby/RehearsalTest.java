package dev.tandem.extender.standby;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.Annotations;
import dev.tandem.api.ResourceNames;
import dev.tandem.api.plan.PlanCodec;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.http.ReadingRoutes;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodWriter;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.verbs.AllocationBudget;
import dev.tandem.extender.verbs.BindVerb;
import dev.tandem.extender.verbs.FilterVerb;
import dev.tandem.extender.verbs.FilterVerdict;
import dev.tandem.extender.verbs.NodeEvaluator;
import dev.tandem.extender.verbs.PodRequest;
import dev.tandem.extender.verbs.PodRequests;
import dev.tandem.extender.verbs.PrioritizeVerb;
import dev.tandem.topology.allocation.AllocationRequest;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.SelfSignedCertificate;
import io.vertx.ext.web.Router;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class RehearsalTest {

  private ClusterParts cluster;
  private ExtenderMetrics metrics;
  private FilterVerb filter;
  private Context context;
  private final List<String> sent = new CopyOnWriteArrayList<>();
  private final List<String> prepared = new CopyOnWriteArrayList<>();
  private final List<PodRef> read = new CopyOnWriteArrayList<>();

  private static final PodRef SELF = new PodRef("tandem-system", "extender-1", "");

  @BeforeEach
  void demoClusterAsStandby(Vertx vertx) {
    context = vertx.getOrCreateContext();
    cluster = DemoCluster.fromBundledFixtures();
    cluster.readiness().leader(false);
    metrics = new ExtenderMetrics(cluster);
    filter = new FilterVerb(new NodeEvaluator(1000), cluster.state().gangRails());
  }

  private Rehearsal rehearsal(Vertx vertx, int cycles) {
    return rehearsal(vertx, cycles, Rehearsal.Listener.like(new HttpServerOptions()), req -> {});
  }

  /** A rehearsal against the verbs' filter and prioritize; {@code seen} sees each request. */
  private Rehearsal rehearsal(
      Vertx vertx, int cycles, Rehearsal.Listener listener, Handler<HttpServerRequest> seen) {
    NodeEvaluator evaluator = new NodeEvaluator(1000);
    Router router = Router.router(vertx);
    new ReadingRoutes(
            vertx,
            cluster.state(),
            new RecentPods(Duration.ofSeconds(1), 1, cluster.pods()),
            new FilterVerb(evaluator, cluster.state().gangRails()),
            new PrioritizeVerb(evaluator, cluster.state().gangRails()),
            PodRequests.DEFAULT,
            new ExtenderMetrics(cluster))
        .mount(router, "/scheduler", 1 << 24);
    return new Rehearsal(
        vertx,
        cluster.state(),
        cluster.readiness(),
        metrics,
        req -> {
          seen.handle(req);
          router.handle(req);
        },
        listener,
        "/scheduler",
        cycles,
        ResourceNames.DEFAULT,
        new BindRehearsal(
            new BindVerb(
                cluster.readiness(),
                cluster.pods(),
                cluster.assumptions(),
                new PodWriter() {
                  @Override
                  public Future<Void> bind(PodRef pod, String node, Map<String, String> a) {
                    sent.add(pod + " " + node);
                    return Future.succeededFuture();
                  }

                  @Override
                  public void rehearse(PodRef pod, String node, Map<String, String> a) {
                    prepared.add(node + " " + a.get(Annotations.PLAN));
                  }
                },
                PodRequests.DEFAULT,
                Duration.ofMinutes(5)),
            ref -> {
              read.add(ref);
              return Future.failedFuture("pod " + ref + " does not exist");
            },
            SELF));
  }

  /** One cycle, run on the one context the rehearsal runs its cycles on in the extender. */
  private int passed(Rehearsal r, int n) throws Exception {
    Promise<Integer> passed = Promise.promise();
    context.runOnContext(v -> r.cycle(n).onComplete(passed));
    return passed.future().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  @Test
  @DisplayName("a synced standby runs its cycles, counts them, then stops; nothing is assumed")
  void standbyRehearsesThenStops(Vertx vertx) {
    Rehearsal r = rehearsal(vertx, 30);
    r.start();
    await().atMost(Duration.ofSeconds(60)).until(() -> r.done() == 30);
    await()
        .during(Duration.ofMillis(2 * Rehearsal.LOOK_AGAIN_MILLIS))
        .atMost(Duration.ofSeconds(10))
        .until(() -> r.done() == 30);
    String scraped = metrics.scrape();
    assertTrue(scraped.contains("tandem_extender_standby_rehearsal_cycles_total 30.0"), scraped);
    assertTrue(
        scraped
            .lines()
            .filter(l -> l.startsWith("tandem_extender_filter_nodes_total"))
            .allMatch(l -> l.endsWith(" 0.0")),
        "the rehearsal counts no filter outcome:\n" + scraped);
    assertEquals(0, cluster.assumptions().count());
  }

  @Test
  @DisplayName(
      "each cycle binds on the node prioritize scored best, preparing the plan's Binding without"
          + " sending it or holding devices, and reads its own pod every few cycles")
  void cycleRehearsesTheBind(Vertx vertx) throws Exception {
    Rehearsal r = rehearsal(vertx, 1);
    int cycles = 2 * BindRehearsal.READ_EVERY;
    for (int n = 0; n < cycles; n++) {
      passed(r, n);
    }
    assertEquals(List.of(SELF, SELF), read);
    assertTrue(sent.isEmpty(), "nothing sent: " + sent);
    assertEquals(0, cluster.assumptions().count());
    assertTrue(prepared.size() > cycles / 2, "most rehearsal pods fit some demo node: " + prepared);
    for (String p : prepared) {
      String node = p.substring(0, p.indexOf(' '));
      assertEquals(node, PlanCodec.decode(p.substring(node.length() + 1)).node());
    }
  }

  @Test
  @DisplayName("the best node is the highest score, the first of equals; none in an empty list")
  void bestScore() {
    assertNull(Rehearsal.best(Buffer.buffer("[]")));
    assertEquals(
        "b",
        Rehearsal.best(
            Buffer.buffer(
                "[{\"Host\":\"a\",\"Score\":3},{\"Host\":\"b\",\"Score\":7},"
                    + "{\"Host\":\"c\",\"Score\":7}]")));
  }

  @Test
  @DisplayName("the leader does not rehearse; it starts when the replica is a standby again")
  void leaderWaits(Vertx vertx) {
    cluster.readiness().leader(true);
    assertWaitsUntil(vertx, () -> cluster.readiness().leader(false));
  }

  @Test
  @DisplayName("a replica whose informers have not synced does not rehearse")
  void unsyncedWaits(Vertx vertx) {
    cluster.readiness().synced(false);
    assertWaitsUntil(vertx, () -> cluster.readiness().synced(true));
  }

  /** No cycle for longer than the rehearsal's own look-again delay, then all after {@code free}. */
  private void assertWaitsUntil(Vertx vertx, Runnable free) {
    Rehearsal r = rehearsal(vertx, 5);
    r.start();
    await()
        .during(Duration.ofMillis(2 * Rehearsal.LOOK_AGAIN_MILLIS))
        .atMost(Duration.ofSeconds(10))
        .until(() -> r.done() == 0);
    free.run();
    await().atMost(Duration.ofSeconds(30)).until(() -> r.done() == 5);
  }

  @Test
  @DisplayName("a cycle judges the pod as filter does: the same nodes pass")
  void cycleJudgesAsFilter(Vertx vertx) throws Exception {
    Rehearsal r = rehearsal(vertx, 1);
    RehearsalPods pods = new RehearsalPods(ResourceNames.DEFAULT);
    List<NodeEntry> nodes = cluster.state().nodes();
    boolean someRefused = false;
    for (int n = 0; n < pods.count(); n += 5) {
      PodRequest pod = PodRequests.DEFAULT.of(pods.pod(n));
      FilterVerdict v =
          filter.verdict(
              pod,
              CandidateNodes.of(
                  cluster.state().directory(), nodes.stream().map(NodeEntry::name).toList()),
              AllocationBudget.UNLIMITED);
      int passed = 0;
      for (boolean p : v.passed()) {
        passed += p ? 1 : 0;
      }
      someRefused |= passed < nodes.size();
      assertEquals(passed, passed(r, n), "pod " + n);
    }
    assertTrue(someRefused, "some rehearsal pods must be refused somewhere, or the check is weak");
  }

  @Test
  @DisplayName(
      "with the verbs port's TLS and ALPN, it rehearses over HTTP/2 and TLS, without a client"
          + " certificate")
  void likeTheVerbsPort(Vertx vertx) throws Exception {
    SelfSignedCertificate cert = SelfSignedCertificate.create("localhost");
    HttpServerOptions verbs =
        new HttpServerOptions()
            .setSsl(true)
            .setUseAlpn(true)
            .setKeyCertOptions(cert.keyCertOptions())
            .setTrustOptions(cert.trustOptions())
            .setClientAuth(ClientAuth.REQUIRED);
    List<HttpVersion> versions = new CopyOnWriteArrayList<>();
    List<Boolean> tls = new CopyOnWriteArrayList<>();
    Rehearsal r =
        rehearsal(
            vertx,
            1,
            Rehearsal.Listener.like(verbs),
            req -> {
              versions.add(req.version());
              tls.add(req.isSSL());
            });
    assertTrue(passed(r, 0) > 0, "a 1-GPU pod passes some demo node");
    assertEquals(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_2), versions);
    assertEquals(List.of(true, true), tls);
    assertEquals(
        ClientAuth.REQUIRED, verbs.getClientAuth(), "the verbs' options stay as they were");
  }

  @Test
  @DisplayName("the rehearsal pods are device pods of distinct, valid shapes")
  void podsAreDistinctDeviceShapes() {
    RehearsalPods pods = new RehearsalPods(ResourceNames.DEFAULT);
    Set<AllocationRequest> shapes = new HashSet<>();
    for (int n = 0; n < pods.count(); n++) {
      PodRequest pod = PodRequests.DEFAULT.of(pods.pod(n));
      assertTrue(pod.interested(), "pod " + n);
      assertNull(pod.problem(), "pod " + n);
      shapes.add(pod.request());
    }
    assertEquals(pods.count(), shapes.size());
    assertEquals(pods.pod(3).encode(), pods.pod(3 + pods.count()).encode());
  }

  @Test
  @DisplayName("up to 1,000 names per request, a different window each cycle, wrapping around")
  void windows() {
    List<String> few = List.of("a", "b");
    assertEquals(few, Rehearsal.window(few, 7));
    List<String> many = IntStream.range(0, 2500).mapToObj(i -> "node-" + i).toList();
    assertEquals(many.subList(0, 1000), Rehearsal.window(many, 0));
    assertEquals(many.subList(1000, 2000), Rehearsal.window(many, 1));
    List<String> third = Rehearsal.window(many, 2);
    assertEquals(1000, third.size());
    assertEquals("node-2000", third.get(0));
    assertEquals("node-0", third.get(500));
  }
}
