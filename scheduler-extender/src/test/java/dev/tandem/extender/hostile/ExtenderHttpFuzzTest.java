package dev.tandem.extender.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tandem.extender.Extender;
import dev.tandem.extender.Listeners;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * The extender's four verbs over a real socket, with requests drawn by {@link HostileGrammar}: no
 * answer is a 5xx, every answer comes within kube-scheduler's {@code httpTimeout} (10 s, the
 * manifests'), no request holds the event loop longer than {@link #LOOP_HELD_AT_MOST} ({@link
 * EventLoopLag}), and {@code /healthz} still answers after each. A server closing without an answer
 * is accepted only where the client promised more body than it sent. Runs its corpus in {@code mvn
 * verify}; {@code benchmarks/run-fuzz} fuzzes it for longer.
 */
class ExtenderHttpFuzzTest {

  /** kube-scheduler's httpTimeout in the manifests; {@code tandem.fuzz.answerWithin} overrides. */
  private static final Duration ANSWER_WITHIN =
      Duration.parse(System.getProperty("tandem.fuzz.answerWithin", "PT10S"));

  /**
   * The longest any request may hold the event loop; {@code tandem.fuzz.loopHeldAtMost} overrides.
   * The extender's own budget for a new pod shape on the loop is 64 nodes of allocator work (about
   * 0.1 ms, {@code AllocationBudget.EVENT_LOOP}), the rest going to a worker thread. That is too
   * short to tell from a loaded two-core machine's noise in an instrumented JVM (a core's wait, a
   * collection, a class instrumented on first use), so the default is 2 s: above that noise, and
   * below {@code nvidia.com/gpu: 1e1000000}'s 3.1 s on the tree before the fix.
   */
  private static final Duration LOOP_HELD_AT_MOST =
      Duration.parse(System.getProperty("tandem.fuzz.loopHeldAtMost", "PT2S"));

  /** Started by the first input (Jazzer runs a test class's static code before it can fuzz). */
  private static Listeners server;

  private static EventLoopLag loop;

  private static Listeners start() {
    try {
      // one event loop: the probe then shares it with every verb and with /healthz
      Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
      Listeners started =
          Extender.start(
                  vertx,
                  ExtenderConfig.defaults().onFreePorts().withBodyLimit(1024 * 1024),
                  DemoCluster.of(TestMachines.golden()))
              .toCompletionStage()
              .toCompletableFuture()
              .get();
      warmUp(started);
      loop = EventLoopLag.on(vertx);
      return started;
    } catch (Exception e) {
      throw new IllegalStateException("the extender did not start on loopback", e);
    }
  }

  /**
   * One plain call of each verb before the first input: loading (and, when fuzzing, instrumenting)
   * the classes of the HTTP stack takes seconds, which is not the answer's time. A filter of 30,000
   * node names warms the decoder and the answer's writer: cold and instrumented, its first call
   * held the loop for seconds.
   */
  private static void warmUp(Listeners server) throws IOException {
    for (String verb : new String[] {"filter", "prioritize", "bind", "preempt"}) {
      HostileRequest r = HostileRequest.plain("/scheduler/" + verb, "{\"Pod\":{}}");
      RawExchange.send(server.verbsPort(), r.bytes(), false, Duration.ofMinutes(1));
    }
    String names = "\"n1\",".repeat(30_000);
    String many = "{\"Pod\":{},\"NodeNames\":[" + names + "\"n2\"]}";
    for (int i = 0; i < 3; i++) {
      HostileRequest r = HostileRequest.plain("/scheduler/filter", many);
      RawExchange.send(server.verbsPort(), r.bytes(), false, Duration.ofMinutes(1));
    }
    RawExchange.get(server.inspectionPort(), "/healthz", Duration.ofMinutes(1));
  }

  @FuzzTest(maxDuration = "60s")
  @Timeout(
      value = 15,
      unit = TimeUnit.MINUTES) // a longer run's -max_total_time, not the build's 2 m
  void verbsAnswerInTimeWithoutServerErrors(FuzzedDataProvider data) throws IOException {
    try (SilentCloseable loopback = loopbackOnly()) {
      if (server == null) {
        server = start();
      }
      exchange(HostileGrammar.draw(data));
    }
  }

  /**
   * Jazzer's SSRF detector refuses every connection by default; these go to the loopback server
   * (Vert.x's own connections name it {@code localhost}).
   */
  private static SilentCloseable loopbackOnly() {
    return BugDetectors.allowNetworkConnections(
        (host, port) -> host.equals("127.0.0.1") || host.equals("localhost"));
  }

  private static void exchange(HostileRequest request) throws IOException {
    loop.reset();
    RawExchange.Answer answer =
        RawExchange.send(server.verbsPort(), request.bytes(), request.halfClose(), ANSWER_WITHIN);
    if (answer.timedOut()) {
      fail("no answer within " + ANSWER_WITHIN + " to " + described(request));
    }
    Duration held = loop.held(ANSWER_WITHIN);
    if (held.compareTo(LOOP_HELD_AT_MOST) > 0) {
      fail(
          "the event loop was held for "
              + held
              + " (at most "
              + LOOP_HELD_AT_MOST
              + ") by "
              + described(request));
    }
    if (answer.closed() && !request.halfClose()) {
      fail("closed without an answer: " + request);
    }
    assertFalse(answer.serverError(), () -> answer + " to " + request);
    RawExchange.Answer health = RawExchange.get(server.inspectionPort(), "/healthz", ANSWER_WITHIN);
    assertEquals(200, health.status(), () -> "/healthz after " + request + ": " + health);
  }

  /** The request's path and the start of its body, where the grammar puts the pod's quantities. */
  private static String described(HostileRequest request) {
    String body = new String(request.body(), StandardCharsets.UTF_8);
    String start = body.length() <= 400 ? body : body.substring(0, 400) + "…";
    return request.path() + " (" + request.body().length + " bytes of body: " + start + ")";
  }
}
