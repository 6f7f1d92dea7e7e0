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
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * The extender's four verbs over a real socket, with requests drawn by {@link HostileGrammar}: no
 * answer is a 5xx, every answer comes within kube-scheduler's {@code httpTimeout} (10 s, the
 * manifests'), and {@code /healthz} still answers after each. A server closing without an answer is
 * accepted only where the client promised more body than it sent. Runs its corpus in {@code mvn
 * verify}; {@code benchmarks/run-fuzz} fuzzes it for longer.
 */
class ExtenderHttpFuzzTest {

  /** kube-scheduler's httpTimeout in the manifests; {@code tandem.fuzz.answerWithin} overrides. */
  private static final Duration ANSWER_WITHIN =
      Duration.parse(System.getProperty("tandem.fuzz.answerWithin", "PT10S"));

  /** Started by the first input (Jazzer runs a test class's static code before it can fuzz). */
  private static Listeners server;

  private static Listeners start() {
    try {
      Listeners started =
          Extender.start(
                  Vertx.vertx(),
                  ExtenderConfig.defaults().onFreePorts().withBodyLimit(1024 * 1024),
                  DemoCluster.of(TestMachines.golden()))
              .toCompletionStage()
              .toCompletableFuture()
              .get();
      warmUp(started);
      return started;
    } catch (Exception e) {
      throw new IllegalStateException("the extender did not start on loopback", e);
    }
  }

  /**
   * One plain call of each verb before the first input: loading (and, when fuzzing, instrumenting)
   * the classes of the HTTP stack takes seconds, which is not the answer's time.
   */
  private static void warmUp(Listeners server) throws IOException {
    for (String verb : new String[] {"filter", "prioritize", "bind", "preempt"}) {
      HostileRequest r = HostileRequest.plain("/scheduler/" + verb, "{\"Pod\":{}}");
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
    RawExchange.Answer answer =
        RawExchange.send(server.verbsPort(), request.bytes(), request.halfClose(), ANSWER_WITHIN);
    if (answer.timedOut()) {
      fail("no answer within " + ANSWER_WITHIN + " to " + request);
    }
    if (answer.closed() && !request.halfClose()) {
      fail("closed without an answer: " + request);
    }
    assertFalse(answer.serverError(), () -> answer + " to " + request);
    RawExchange.Answer health = RawExchange.get(server.inspectionPort(), "/healthz", ANSWER_WITHIN);
    assertEquals(200, health.status(), () -> "/healthz after " + request + ": " + health);
  }
}
