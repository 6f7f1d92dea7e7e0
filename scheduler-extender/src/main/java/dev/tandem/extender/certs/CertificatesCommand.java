package dev.tandem.extender.certs;

import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Settings;
import dev.tandem.kit.kube.KubeConnection;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code java -jar scheduler-extender.jar certificates}: the one-shot Job of the kustomize install
 * (and of hosts and tests with {@code --out}). Exit 0 when the certificates exist afterwards, 1
 * when they could not be made, 2 for bad flags.
 */
public final class CertificatesCommand {

  private CertificatesCommand() {}

  public static int run(List<String> args, Map<String, String> env, PrintStream out) {
    if (Settings.wantsHelp(args)) {
      out.print(CertificateSettings.SETTINGS.usage());
      return 0;
    }
    Resolved v;
    try {
      v = CertificateSettings.SETTINGS.resolve(args, env);
    } catch (InvalidConfigurationException e) {
      out.println("certificates: invalid configuration: " + e.getMessage());
      return 2;
    }
    String namespace = v.get(CertificateSettings.NAMESPACE);
    List<String> names = serverNames(v.get(CertificateSettings.SERVICE), namespace);
    names.addAll(v.get(CertificateSettings.EXTRA_NAMES, List.of()));
    int days = v.get(CertificateSettings.DAYS);
    Supplier<CertificateSet> issue = () -> Issuer.issue(names, days);
    try {
      Path dir = v.get(CertificateSettings.OUT);
      boolean made =
          dir != null ? CertificateFiles.ensure(dir, issue) : secrets(namespace, v, issue);
      out.println(
          "certificates: "
              + (made ? "issued for " + String.join(", ", names) : "already there, nothing done")
              + " ("
              + (dir != null ? dir : "Secrets in " + namespace)
              + ")");
      return 0;
    } catch (CertificateIssueException | KubernetesClientException e) {
      out.println("certificates: " + e.getMessage());
      return 1;
    }
  }

  /** The names kube-scheduler may use for the Service: short, namespaced, and fully qualified. */
  public static List<String> serverNames(String service, String namespace) {
    String svc = service + "." + namespace + ".svc";
    return new ArrayList<>(
        List.of(svc, service, service + "." + namespace, svc + ".cluster.local"));
  }

  private static boolean secrets(String namespace, Resolved v, Supplier<CertificateSet> issue) {
    try (KubernetesClient client = KubeConnection.of(null).client()) {
      return new CertificateSecrets(client, namespace)
          .ensure(
              v.get(CertificateSettings.EXTENDER_SECRET),
              v.get(CertificateSettings.SCHEDULER_SECRET),
              issue);
    }
  }
}
