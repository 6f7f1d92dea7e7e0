package dev.tandem.extender.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.Extender;
import dev.tandem.extender.Listeners;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.hostile.HostileRequest.Framing;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName(
    "hostile requests over a raw socket: every header Go's client can send per RFC 9110, bounded"
        + " quantities and JSON; a 4xx that says why or normal processing, never a 5xx")
@ExtendWith(VertxExtension.class)
class HostileRequestsIT {

  /** A hang detector, not a timing assertion: kube-scheduler's httpTimeout in the manifests. */
  private static final Duration WITHIN = Duration.ofSeconds(10);

  private static final String FILTER = "/scheduler/filter";

  private static Listeners server;

  @BeforeAll
  static void start(Vertx vertx) throws Exception {
    server =
        Extender.start(
                vertx,
                ExtenderConfig.defaults().onFreePorts().withBodyLimit(1024 * 1024),
                DemoCluster.of(TestMachines.golden()))
            .toCompletionStage()
            .toCompletableFuture()
            .get();
  }

  @AfterEach
  void stillHealthy() throws IOException {
    assertEquals(200, RawExchange.get(server.inspectionPort(), "/healthz", WITHIN).status());
  }

  private static String args(String containers) {
    return "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\",\"uid\":\"u1\"},"
        + "\"spec\":{"
        + containers
        + "}},\"NodeNames\":[\"pix-node\",\"split-node\"]}";
  }

  private static final String TWO_GPUS =
      args(
          "\"containers\":[{\"name\":\"main\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"2\"}}}]");

  private static RawExchange.Answer send(HostileRequest r) throws IOException {
    RawExchange.Answer a = RawExchange.send(server.verbsPort(), r.bytes(), r.halfClose(), WITHIN);
    assertTrue(!a.timedOut(), () -> "no answer to " + r);
    return a;
  }

  private static String error(RawExchange.Answer a) {
    return new JsonObject(a.body()).getString("error");
  }

  @ParameterizedTest(name = "Expect: ''{0}''")
  @ValueSource(strings = {"", "fly", "100-continue, fly", "200-ok"})
  @DisplayName("an Expect other than 100-continue: 417 naming it (RFC 9110 §10.1.1), not a 500")
  void unknownExpectation(String expect) throws IOException {
    RawExchange.Answer a = send(HostileRequest.plain(FILTER, TWO_GPUS).withExpect(expect));
    assertEquals(417, a.status(), a::toString);
    assertEquals(
        "Expect: '"
            + expect
            + "' is not an expectation this server meets; only 100-continue is (RFC 9110"
            + " §10.1.1): send the request without it",
        error(a));
  }

  @ParameterizedTest(name = "Expect: ''{0}''")
  @ValueSource(strings = {"100-continue", "100-Continue"})
  @DisplayName("Expect: 100-continue is met: the verb answers as usual")
  void continueExpectation(String expect) throws IOException {
    assertEquals(200, send(HostileRequest.plain(FILTER, TWO_GPUS).withExpect(expect)).status());
  }

  @Test
  @DisplayName("a coded body (Content-Encoding: gzip) gets 415; identity is served")
  void contentEncoding() throws IOException {
    RawExchange.Answer a = send(HostileRequest.plain(FILTER, TWO_GPUS).withEncoding("gzip", true));
    assertEquals(415, a.status(), a::toString);
    assertTrue(error(a).startsWith("Content-Encoding: 'gzip' is not accepted"), a::toString);
    HostileRequest identity =
        HostileRequest.plain(FILTER, TWO_GPUS).withEncoding("identity", false);
    assertEquals(200, send(identity).status());
  }

  @Test
  @DisplayName(
      "framing: chunked, and chunked with a Content-Length, are served; an unknown transfer coding"
          + " or a short Content-Length gets 400")
  void framing() throws IOException {
    HostileRequest plain = HostileRequest.plain(FILTER, TWO_GPUS);
    assertEquals(200, send(plain.withFraming(Framing.CHUNKED)).status());
    assertEquals(200, send(plain.withFraming(Framing.LENGTH_AND_CHUNKED)).status());
    RawExchange.Answer unknown = send(plain.withFraming(Framing.UNKNOWN_CODING));
    assertEquals(400, unknown.status(), unknown::toString);
    RawExchange.Answer cut = send(plain.withFraming(Framing.SHORT_LENGTH));
    assertEquals(400, cut.status(), cut::toString);
    assertTrue(error(cut).startsWith("body is not a JSON object: "), cut::toString);
  }

  @Test
  @DisplayName("a client that promises more body than it sends and closes: the server closes too")
  void longContentLength() throws IOException {
    RawExchange.Answer a =
        send(HostileRequest.plain(FILTER, TWO_GPUS).withFraming(Framing.LONG_LENGTH));
    assertTrue(a.closed() || a.status() == 400, a::toString);
  }

  @Test
  @DisplayName("a head over Vert.x's 8 KiB of headers gets 431")
  void oversizedHeaders() throws IOException {
    assertEquals(431, send(HostileRequest.plain(FILTER, TWO_GPUS).withPadding(20_000)).status());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "1e12000000",
        "9.9e2147483647",
        "1000000000000000000000000000000000000000000000000000000000000",
        "3Gi"
      })
  @DisplayName(
      "more GPUs than any node has, however written: 200, every node refuses naming container,"
          + " resource and value; answered at once")
  void hugeQuantity(String quantity) throws IOException {
    String body =
        args(
            "\"initContainers\":[{\"name\":\"warm-up\",\"resources\":{\"requests\":"
                + "{\"nvidia.com/gpu\":\""
                + quantity
                + "\"}}}],\"containers\":[{\"name\":\"main\"}]");
    RawExchange.Answer a = send(HostileRequest.plain(FILTER, body));
    assertEquals(200, a.status(), a::toString);
    JsonObject refused = new JsonObject(a.body()).getJsonObject("FailedAndUnresolvableNodes");
    assertEquals(2, refused.size(), a::toString);
    String reason = refused.getString("pix-node");
    assertTrue(
        reason.startsWith(
            "pod ml/p cannot fit on any node: container warm-up: requests of nvidia.com/gpu: '"
                + quantity.substring(0, Math.min(40, quantity.length()))),
        reason);
    assertTrue(reason.contains("is more devices than any node has"), reason);
  }

  @Test
  @DisplayName("JSON nested past 64 levels, or a number of over 100 digits: 400 naming the limit")
  void jsonLimits() throws IOException {
    String deep =
        TWO_GPUS.replace("{\"Pod\"", "{\"x\":" + "[".repeat(70) + "]".repeat(70) + ",\"Pod\"");
    RawExchange.Answer a = send(HostileRequest.plain(FILTER, deep));
    assertEquals(400, a.status(), a::toString);
    assertTrue(
        error(a).startsWith("body is over a limit of the extender's JSON reader"), a::toString);
    assertTrue(error(a).contains("nesting depth"), a::toString);
    String number =
        "{\"PodName\":\"p\",\"PodNamespace\":\"ml\",\"PodUID\":\"u\",\"Node\":\"n\","
            + "\"x\":1"
            + "0".repeat(200)
            + "}";
    RawExchange.Answer b = send(HostileRequest.plain("/scheduler/bind", number));
    assertEquals(400, b.status(), b::toString);
    assertTrue(error(b).contains("Number value length"), b::toString);
  }
}
