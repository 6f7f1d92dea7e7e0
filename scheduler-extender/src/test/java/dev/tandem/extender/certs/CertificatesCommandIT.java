package dev.tandem.extender.certs;

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
import io.vertx.junit5.VertxExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@DisplayName(
    "certificates: keytool issues a CA, a serving and a client certificate that the extender's"
        + " mutual TLS accepts, once")
@ExtendWith(VertxExtension.class)
class CertificatesCommandIT {

  @TempDir static Path dir;
  private static String firstRun;

  /** What the command printed, having asserted its exit code. */
  private static String run(int exit, String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code =
        CertificatesCommand.run(
            List.of(args), Map.of(), new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(exit, code, out);
    return out;
  }

  @BeforeAll
  static void issue() {
    firstRun = run(0, "--out", dir.toString(), "--extra-names", "localhost,ip:127.0.0.1");
  }

  private static X509Certificate certificate(Path file) throws Exception {
    try (InputStream in = Files.newInputStream(file)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private static Path file(String who, String name) {
    return dir.resolve(who).resolve(name);
  }

  @Test
  @DisplayName(
      "the serving certificate names the Service, serves only servers; the client certificate"
          + " only clients; both signed by the CA")
  void certificates() throws Exception {
    assertTrue(
        firstRun.contains("issued for tandem-scheduler-extender.tandem-system.svc"), firstRun);
    X509Certificate ca = certificate(file(CertificateFiles.EXTENDER, "ca.crt"));
    X509Certificate server = certificate(file(CertificateFiles.EXTENDER, "tls.crt"));
    X509Certificate client = certificate(file(CertificateFiles.SCHEDULER, "tls.crt"));
    assertTrue(ca.getBasicConstraints() >= 0, "the CA is a CA");
    server.verify(ca.getPublicKey());
    client.verify(ca.getPublicKey());
    assertEquals(List.of("1.3.6.1.5.5.7.3.1"), server.getExtendedKeyUsage(), "serverAuth");
    assertEquals(List.of("1.3.6.1.5.5.7.3.2"), client.getExtendedKeyUsage(), "clientAuth");
    String names = server.getSubjectAlternativeNames().toString();
    for (String n :
        List.of(
            "tandem-scheduler-extender.tandem-system.svc",
            "tandem-scheduler-extender.tandem-system.svc.cluster.local",
            "localhost",
            "127.0.0.1")) {
      assertTrue(names.contains(n), n + " in " + names);
    }
    assertEquals(
        Files.readString(file(CertificateFiles.EXTENDER, "ca.crt")),
        Files.readString(file(CertificateFiles.SCHEDULER, "ca.crt")));
  }

  @Test
  @DisplayName("a second run with the files in place does nothing")
  void idempotent() throws Exception {
    String before = Files.readString(file(CertificateFiles.EXTENDER, "tls.crt"));
    assertTrue(run(0, "--out", dir.toString()).contains("already there, nothing done"));
    assertEquals(before, Files.readString(file(CertificateFiles.EXTENDER, "tls.crt")));
  }

  @Test
  @DisplayName("the extender serves the verbs to the client certificate and refuses others")
  void mutualTls(Vertx vertx) throws Exception {
    ExtenderConfig config =
        ExtenderConfig.load(
            List.of(
                "--port", "0",
                "--inspection-port", "0",
                "--tls-cert", file(CertificateFiles.EXTENDER, "tls.crt").toString(),
                "--tls-key", file(CertificateFiles.EXTENDER, "tls.key").toString(),
                "--client-ca", file(CertificateFiles.EXTENDER, "ca.crt").toString()),
            Map.of());
    Listeners l = Extender.start(vertx, config, DemoCluster.of(TestMachines.golden())).await();
    Path ca = file(CertificateFiles.SCHEDULER, "ca.crt");
    Http scheduler =
        new Http(
            l.verbsPort(),
            ca,
            file(CertificateFiles.SCHEDULER, "tls.crt"),
            file(CertificateFiles.SCHEDULER, "tls.key"));
    HttpResponse<String> r = scheduler.post("/scheduler/filter", Http.golden("filter-names.json"));
    assertEquals(200, r.statusCode(), r.body());
    // the serving certificate is no client certificate (extended key usage serverAuth only)
    Http server =
        new Http(
            l.verbsPort(),
            ca,
            file(CertificateFiles.EXTENDER, "tls.crt"),
            file(CertificateFiles.EXTENDER, "tls.key"));
    CompletionException e =
        assertThrows(
            CompletionException.class,
            () -> server.post("/scheduler/filter", Http.golden("filter-names.json")));
    assertInstanceOf(IOException.class, e.getCause());
  }

  @Test
  @DisplayName("half a set in the directory is refused naming both directories")
  void halfASet(@TempDir Path other) throws Exception {
    Files.createDirectories(other.resolve(CertificateFiles.EXTENDER));
    for (String f : List.of("tls.crt", "tls.key", "ca.crt")) {
      Files.copy(
          file(CertificateFiles.EXTENDER, f), other.resolve(CertificateFiles.EXTENDER).resolve(f));
    }
    String out = run(1, "--out", other.toString());
    assertTrue(out.contains("both must come from one CA"), out);
  }
}
