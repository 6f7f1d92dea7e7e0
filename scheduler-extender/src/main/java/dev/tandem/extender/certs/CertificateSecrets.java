package dev.tandem.extender.certs;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A {@link CertificateSet} as two {@code kubernetes.io/tls} Secrets (keys {@code tls.crt}, {@code
 * tls.key}, {@code ca.crt}): the extender's and kube-scheduler's. Idempotent: nothing is done when
 * both exist.
 */
public final class CertificateSecrets {

  private final KubernetesClient client;
  private final String namespace;

  public CertificateSecrets(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  /**
   * Creates both Secrets from a new set unless both exist.
   *
   * @return true when created, false when both already existed
   * @throws CertificateIssueException when only one exists (they must share a CA)
   */
  public boolean ensure(String extender, String scheduler, Supplier<CertificateSet> issue) {
    boolean hasExtender = exists(extender);
    boolean hasScheduler = exists(scheduler);
    if (hasExtender && hasScheduler) {
      return false;
    }
    if (hasExtender || hasScheduler) {
      String present = hasExtender ? extender : scheduler;
      throw new CertificateIssueException(
          "Secret "
              + namespace
              + "/"
              + present
              + " exists but "
              + (hasExtender ? scheduler : extender)
              + " does not: both must come from one CA; delete "
              + present
              + " (kubectl -n "
              + namespace
              + " delete secret "
              + present
              + ") and run the Job again");
    }
    CertificateSet set = issue.get();
    create(extender, set.extender(), set.ca());
    create(scheduler, set.scheduler(), set.ca());
    return true;
  }

  private boolean exists(String name) {
    return client.secrets().inNamespace(namespace).withName(name).get() != null;
  }

  private void create(String name, PemPair pair, String ca) {
    Secret secret =
        new SecretBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .withLabels(
                Map.of(
                    "app.kubernetes.io/part-of", "tandem",
                    "app.kubernetes.io/managed-by", "tandem-certificates"))
            .endMetadata()
            .withType("kubernetes.io/tls")
            .withData(
                Map.of(
                    "tls.crt", base64(pair.certificate()),
                    "tls.key", base64(pair.key()),
                    "ca.crt", base64(ca)))
            .build();
    client.secrets().inNamespace(namespace).resource(secret).create();
  }

  private static String base64(String pem) {
    return Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII));
  }
}
