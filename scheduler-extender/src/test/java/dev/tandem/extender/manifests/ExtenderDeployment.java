package dev.tandem.extender.manifests;

import dev.tandem.extender.config.ExtenderConfig;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The extender's Deployment and Service as manifests/base declares them. */
public final class ExtenderDeployment {

  static final String FILE = "base/deployment-scheduler-extender.yaml";
  private static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();

  private ExtenderDeployment() {}

  static Deployment deployment() {
    return of(Deployment.class, "tandem-scheduler-extender");
  }

  static Service service() {
    return of(Service.class, "tandem-scheduler-extender");
  }

  static Container container() {
    return deployment().getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  /**
   * The JVM options the extender runs with in its pod: the container's {@code JAVA_TOOL_OPTIONS}
   * without its {@code -XX:AOTCache} (the image's path), and its memory limit as the JVM's RAM.
   */
  public static List<String> jvmOptions() {
    Container c = container();
    String options =
        c.getEnv().stream()
            .filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no JAVA_TOOL_OPTIONS in " + FILE))
            .getValue();
    List<String> out = new ArrayList<>();
    for (String o : options.split(" +")) {
      if (!o.startsWith("-XX:AOTCache=")) {
        out.add(o);
      }
    }
    Quantity limit = c.getResources().getLimits().get("memory");
    out.add("-XX:MaxRAM=" + Quantity.getAmountInBytes(limit).longValue());
    return out;
  }

  /** Where the Deployment mounts the extender's TLS Secret. */
  static final String TLS_DIR = "/etc/tandem/tls";

  /**
   * The extender's configuration as its container's args produce it, with the TLS Secret's mount at
   * {@code tlsDir} (files as the certificate Job writes them).
   */
  static ExtenderConfig config(Path tlsDir) {
    List<String> args =
        container().getArgs().stream().map(a -> a.replace(TLS_DIR, tlsDir.toString())).toList();
    return ExtenderConfig.load(args, Map.of());
  }

  /** The container's args that are not about certificate files (which exist only in the pod). */
  static ExtenderConfig configWithoutCertificates() {
    List<String> args =
        container().getArgs().stream().filter(a -> !a.contains("=" + TLS_DIR + "/")).toList();
    return ExtenderConfig.load(args, Map.of());
  }

  private static <T> T of(Class<T> type, String name) {
    return ManifestFiles.documents(ManifestFiles.ROOT.resolve(FILE)).stream()
        .map(d -> FABRIC8.convertValue(d.node(), KubernetesResource.class))
        .filter(type::isInstance)
        .map(type::cast)
        .filter(r -> ((HasMetadata) r).getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no " + type.getSimpleName() + " " + name + " in " + FILE));
  }
}
