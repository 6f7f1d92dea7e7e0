package dev.tandem.extender.certs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
@DisplayName("the certificate Job's Secrets: created once from one CA, never half, never replaced")
class CertificateSecretsMockTest {

  private static final String NS = "tandem-system";
  private static final String EXTENDER = "tandem-scheduler-extender-tls";
  private static final String SCHEDULER = "tandem-scheduler-client-tls";

  KubernetesClient client;

  private final AtomicInteger issued = new AtomicInteger();

  private final Supplier<CertificateSet> issue =
      () -> {
        issued.incrementAndGet();
        return new CertificateSet(
            "CA", new PemPair("SERVER-CRT", "SERVER-KEY"), new PemPair("CLIENT-CRT", "CLIENT-KEY"));
      };

  private String value(String secret, String key) {
    Secret s = client.secrets().inNamespace(NS).withName(secret).get();
    return new String(Base64.getDecoder().decode(s.getData().get(key)), StandardCharsets.US_ASCII);
  }

  @Test
  @DisplayName(
      "creates two kubernetes.io/tls Secrets with tls.crt, tls.key and ca.crt, then no-ops")
  void createsOnceThenNothing() {
    CertificateSecrets secrets = new CertificateSecrets(client, NS);
    assertTrue(secrets.ensure(EXTENDER, SCHEDULER, issue));
    Secret extender = client.secrets().inNamespace(NS).withName(EXTENDER).get();
    assertEquals("kubernetes.io/tls", extender.getType());
    assertEquals(Set.of("tls.crt", "tls.key", "ca.crt"), extender.getData().keySet());
    assertEquals("SERVER-KEY", value(EXTENDER, "tls.key"));
    assertEquals("CLIENT-CRT", value(SCHEDULER, "tls.crt"));
    assertEquals(value(EXTENDER, "ca.crt"), value(SCHEDULER, "ca.crt"));

    assertFalse(secrets.ensure(EXTENDER, SCHEDULER, issue), "second run");
    assertEquals(1, issued.get(), "a second run issues nothing");
    assertEquals("SERVER-CRT", value(EXTENDER, "tls.crt"));
  }

  @Test
  @DisplayName("one Secret without the other is refused, naming the one to delete")
  void halfASetIsRefused() {
    CertificateSecrets secrets = new CertificateSecrets(client, NS);
    secrets.ensure(EXTENDER, SCHEDULER, issue);
    client.secrets().inNamespace(NS).withName(SCHEDULER).delete();
    CertificateIssueException e =
        assertThrows(
            CertificateIssueException.class, () -> secrets.ensure(EXTENDER, SCHEDULER, issue));
    assertTrue(
        e.getMessage().contains("Secret tandem-system/" + EXTENDER + " exists but " + SCHEDULER)
            && e.getMessage().contains("kubectl -n tandem-system delete secret " + EXTENDER),
        e.getMessage());
    assertEquals(1, issued.get());
  }
}
