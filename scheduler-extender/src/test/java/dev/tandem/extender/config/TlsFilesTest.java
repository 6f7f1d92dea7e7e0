package dev.tandem.extender.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kit.config.InvalidConfigurationException;
import io.vertx.core.net.SelfSignedCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName(
    "certificate settings: refused at start with the file, the setting and the fix; bind is never"
        + " exposed without client authentication unless asked")
class TlsFilesTest {

  private static SelfSignedCertificate one;
  private static SelfSignedCertificate other;

  @BeforeAll
  static void certificates() {
    one = SelfSignedCertificate.create("localhost");
    other = SelfSignedCertificate.create("localhost");
  }

  @AfterAll
  static void delete() {
    one.delete();
    other.delete();
  }

  private static ExtenderConfig load(String... args) {
    return ExtenderConfig.load(List.of(args), Map.of());
  }

  private static String refusal(String... args) {
    return assertThrows(InvalidConfigurationException.class, () -> load(args)).getMessage();
  }

  /** Mutual TLS with matching files: one's pair, the other's certificate as client CA. */
  private static ExtenderConfig mutual() {
    return load(
        "--tls-cert",
        one.certificatePath(),
        "--tls-key",
        one.privateKeyPath(),
        "--client-ca",
        other.certificatePath());
  }

  @Test
  @DisplayName("a certificate with its own key, and a CA bundle, are accepted")
  void matchingFiles() {
    assertDoesNotThrow(TlsFilesTest::mutual);
  }

  @Test
  @DisplayName("the key of another certificate is refused naming --tls-key, both files and the fix")
  void mismatchedKey() {
    String m = refusal("--tls-cert", one.certificatePath(), "--tls-key", other.privateKeyPath());
    assertTrue(
        m.contains("--tls-key " + other.privateKeyPath())
            && m.contains("is not the key of --tls-cert " + one.certificatePath())
            && m.contains("of one Secret"),
        m);
  }

  @Test
  @DisplayName("a file that is no key, or no certificate, is refused naming the setting and file")
  void notPem(@TempDir Path dir) throws Exception {
    Path garbage = Files.writeString(dir.resolve("ca.crt"), "not a certificate\n");
    String key = refusal("--tls-cert", one.certificatePath(), "--tls-key", one.certificatePath());
    assertTrue(key.contains("--tls-key " + one.certificatePath() + ": not a PEM private key"), key);
    String ca =
        refusal(
            "--tls-cert",
            one.certificatePath(),
            "--tls-key",
            one.privateKeyPath(),
            "--client-ca",
            garbage.toString());
    assertTrue(ca.contains("--client-ca " + garbage + ": not a PEM certificate"), ca);
    String inspection =
        refusal(
            "--inspection-tls-cert",
            garbage.toString(),
            "--inspection-tls-key",
            one.privateKeyPath());
    assertTrue(inspection.contains("--inspection-tls-cert " + garbage), inspection);
  }

  @Test
  @DisplayName(
      "bind without client certificates is refused outside the demo unless --insecure-verbs")
  void verbsNeedClientAuthentication() {
    InvalidConfigurationException plain =
        assertThrows(
            InvalidConfigurationException.class, () -> load().requireVerbsAuthentication());
    assertTrue(
        plain.getMessage().contains("over plain HTTP")
            && plain.getMessage().contains("--client-ca")
            && plain.getMessage().contains("--insecure-verbs"),
        plain.getMessage());
    InvalidConfigurationException https =
        assertThrows(
            InvalidConfigurationException.class,
            () ->
                load("--tls-cert", one.certificatePath(), "--tls-key", one.privateKeyPath())
                    .requireVerbsAuthentication());
    assertTrue(https.getMessage().contains("over HTTPS without client certificates"));
    assertDoesNotThrow(() -> load("--insecure-verbs").requireVerbsAuthentication());
    assertDoesNotThrow(() -> load("--demo").requireVerbsAuthentication());
    assertDoesNotThrow(() -> mutual().requireVerbsAuthentication());
  }

  @Test
  @DisplayName("the verbs and the inspection API on one port is refused")
  void onePort() {
    String m = refusal("--port", "9000", "--inspection-port", "9000");
    assertTrue(m.contains("--port and --inspection-port are both 9000"), m);
  }
}
