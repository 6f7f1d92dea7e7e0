package dev.tandem.extender.http;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.Extender;
import dev.tandem.extender.Http;
import dev.tandem.extender.Listeners;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SelfSignedCertificate;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@DisplayName(
    "mutual TLS: the verbs port serves HTTPS to kube-scheduler's client certificate only; the"
        + " inspection port serves everything but the verbs")
@ExtendWith(VertxExtension.class)
class TlsIT {

  /**
   * The extender's server certificate, kube-scheduler's client certificate (self-signed: it is its
   * own CA, the one given to --client-ca) and a certificate of nobody the extender trusts.
   */
  private SelfSignedCertificate server;

  private SelfSignedCertificate scheduler;
  private SelfSignedCertificate stranger;
  private Vertx vertx;

  @BeforeEach
  void certificates(Vertx vertx) {
    server = SelfSignedCertificate.create("localhost");
    scheduler = SelfSignedCertificate.create("kube-scheduler");
    stranger = SelfSignedCertificate.create("kube-scheduler");
    this.vertx = vertx;
  }

  @AfterEach
  void stop() throws Exception {
    for (SelfSignedCertificate c : List.of(server, scheduler, stranger)) {
      c.delete();
    }
  }

  private Listeners start(String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--port",
                "0",
                "--inspection-port",
                "0",
                "--tls-cert",
                server.certificatePath(),
                "--tls-key",
                server.privateKeyPath()));
    args.addAll(List.of(more));
    ExtenderConfig config = ExtenderConfig.load(args, Map.of());
    return Extender.start(vertx, config, DemoCluster.of(TestMachines.golden())).await();
  }

  private Http client(int port, SelfSignedCertificate as) {
    return as == null
        ? new Http(port, Path.of(server.certificatePath()))
        : new Http(
            port,
            Path.of(server.certificatePath()),
            Path.of(as.certificatePath()),
            Path.of(as.privateKeyPath()));
  }

  private static void assertFilters(Http http) {
    HttpResponse<String> answer = http.post("/scheduler/filter", Http.golden("filter-names.json"));
    assertEquals(200, answer.statusCode(), answer.body());
    assertEquals("pix-node", new JsonObject(answer.body()).getJsonArray("NodeNames").getString(0));
  }

  private static void assertRefused(Http http) {
    CompletionException e =
        assertThrows(
            CompletionException.class,
            () -> http.post("/scheduler/bind", Http.golden("bind.json")),
            "the handshake must fail");
    assertInstanceOf(IOException.class, e.getCause(), e.toString());
  }

  @Test
  @DisplayName("--tls-cert/--tls-key without --client-ca: filter answers over HTTPS")
  void https() {
    Listeners l = start();
    assertFilters(client(l.verbsPort(), null));
  }

  @Test
  @DisplayName(
      "the verbs port offers HTTP/2 through ALPN: a client that asks for it (as kube-scheduler's"
          + " does once TLS is set) sends every verb over one connection")
  void http2() {
    Listeners l = start("--client-ca", scheduler.certificatePath());
    Http h2 =
        new Http(
            l.verbsPort(),
            HttpClient.Version.HTTP_2,
            Path.of(server.certificatePath()),
            Path.of(scheduler.certificatePath()),
            Path.of(scheduler.privateKeyPath()));
    HttpResponse<String> answer = h2.post("/scheduler/filter", Http.golden("filter-names.json"));
    assertEquals(200, answer.statusCode(), answer.body());
    assertEquals(HttpClient.Version.HTTP_2, answer.version());
    assertFilters(h2);
  }

  @Test
  @DisplayName("--client-ca: a client certificate signed by the CA gets answers")
  void signedClient() {
    Listeners l = start("--client-ca", scheduler.certificatePath());
    assertFilters(client(l.verbsPort(), scheduler));
  }

  @Test
  @DisplayName(
      "--client-ca: no client certificate, or one from another CA, is refused at handshake")
  void othersRefused() {
    Listeners l = start("--client-ca", scheduler.certificatePath());
    assertRefused(client(l.verbsPort(), null));
    assertRefused(client(l.verbsPort(), stranger));
    assertFilters(client(l.verbsPort(), scheduler));
  }

  @Test
  @DisplayName(
      "the inspection port serves /healthz, /readyz, the page and the API without a certificate,"
          + " and no verb (404)")
  void inspectionWithoutCertificate() {
    Listeners l = start("--client-ca", scheduler.certificatePath());
    Http inspection = new Http(l.inspectionPort());
    assertEquals(200, inspection.get("/healthz").statusCode());
    assertTrue(inspection.get("/readyz").body().contains("\"ready\""));
    HttpResponse<String> page = inspection.get("/ui/");
    assertEquals(200, page.statusCode());
    assertTrue(page.body().contains("<html"), page.body());
    assertEquals(200, inspection.get("/topology/nodes").statusCode());
    for (String verb : List.of("filter", "prioritize", "bind", "preempt")) {
      HttpResponse<String> r = inspection.post("/scheduler/" + verb, Http.golden("bind.json"));
      assertEquals(404, r.statusCode(), verb + ": " + r.body());
    }
    assertEquals(404, client(l.verbsPort(), scheduler).get("/healthz").statusCode());
  }

  @Test
  @DisplayName(
      "a renewed certificate written over the files is served to new connections without a"
          + " restart")
  void rotatedCertificateIsServed(@TempDir Path dir) throws Exception {
    SelfSignedCertificate renewed = SelfSignedCertificate.create("localhost");
    try {
      Path cert = Files.copy(Path.of(server.certificatePath()), dir.resolve("tls.crt"));
      Path key = Files.copy(Path.of(server.privateKeyPath()), dir.resolve("tls.key"));
      ExtenderConfig config =
          ExtenderConfig.load(
              List.of(
                  "--port", "0",
                  "--inspection-port", "0",
                  "--tls-cert", cert.toString(),
                  "--tls-key", key.toString(),
                  "--client-ca", scheduler.certificatePath()),
              Map.of());
      Listeners l = Extender.start(vertx, config, DemoCluster.of(TestMachines.golden())).await();
      assertFilters(client(l.verbsPort(), scheduler));
      Http trustingRenewed =
          new Http(
              l.verbsPort(),
              Path.of(renewed.certificatePath()),
              Path.of(scheduler.certificatePath()),
              Path.of(scheduler.privateKeyPath()));
      assertRefused(trustingRenewed);
      Files.copy(Path.of(renewed.privateKeyPath()), key, StandardCopyOption.REPLACE_EXISTING);
      Files.copy(Path.of(renewed.certificatePath()), cert, StandardCopyOption.REPLACE_EXISTING);
      await("the renewed certificate served")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(1))
          .ignoreExceptions()
          .untilAsserted(() -> assertFilters(trustingRenewed));
    } finally {
      renewed.delete();
    }
  }

  @Test
  @DisplayName("--inspection-tls-cert/--inspection-tls-key: the inspection port serves HTTPS")
  void inspectionHttps() {
    Listeners l =
        start(
            "--insecure-verbs",
            "--inspection-tls-cert",
            server.certificatePath(),
            "--inspection-tls-key",
            server.privateKeyPath());
    assertEquals(200, client(l.inspectionPort(), null).get("/healthz").statusCode());
  }
}
