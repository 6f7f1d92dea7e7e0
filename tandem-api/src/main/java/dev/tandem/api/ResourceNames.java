package dev.tandem.api;

import dev.tandem.topology.model.DeviceKind;
import java.util.regex.Pattern;

/**
 * The extended resources Tandem governs, under the names a cluster gives them: the device plugin
 * registers them, pods request them, Nodes advertise them and the kubelet's PodResources reports
 * them. The agent and the extender must read the names the plugins register; each takes them from
 * its settings, defaulting to {@link #DEFAULT}.
 *
 * @param gpu whole GPUs, as NVIDIA's device plugin (or Tandem's joint mode) advertises them
 * @param hca RDMA HCAs (or VFs, or shared slots), as Tandem's device plugin advertises them
 */
public record ResourceNames(String gpu, String hca) {

  // before DEFAULT, whose construction checks its names
  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");

  /** The GPU resource's default name. */
  public static final String GPU = "nvidia.com/gpu";

  /** The HCA resource's default name. */
  public static final String HCA = "rdma/hca";

  /** {@code nvidia.com/gpu} and {@code rdma/hca}. */
  public static final ResourceNames DEFAULT = new ResourceNames(GPU, HCA);

  /**
   * @throws IllegalArgumentException when a name is not an extended resource name, or both are the
   *     same
   */
  public ResourceNames {
    check("the GPU resource", gpu);
    check("the HCA resource", hca);
    if (gpu.equals(hca)) {
      throw new IllegalArgumentException(
          "the GPU and the HCA resource are both " + gpu + "; they must differ");
    }
  }

  /** The resource that hands out devices of a kind. */
  public String of(DeviceKind kind) {
    return kind == DeviceKind.GPU ? gpu : hca;
  }

  /** Whether {@code resource} is one of the two. */
  public boolean governs(String resource) {
    return gpu.equals(resource) || hca.equals(resource);
  }

  /**
   * The name, when the API server accepts it as an extended resource name (Kubernetes' {@code
   * IsExtendedResourceName}): {@code <domain>/<name>} outside the {@code kubernetes.io} domain, not
   * starting with {@code requests.}, the domain a lowercase DNS subdomain and the name at most 63
   * letters, digits, {@code -}, {@code _} or {@code .}, beginning and ending with a letter or
   * digit.
   *
   * @throws IllegalArgumentException saying what is wrong, as "is …" (the caller names the value)
   */
  public static String extended(String name) {
    int slash = name.indexOf('/');
    if (slash <= 0 || slash == name.length() - 1 || slash != name.lastIndexOf('/')) {
      throw new IllegalArgumentException(
          "is not an extended resource name (it needs a domain and a name, e.g. rdma/hca)");
    }
    if (name.contains("kubernetes.io/")) {
      throw new IllegalArgumentException(
          "is in the kubernetes.io domain, which Kubernetes keeps for its own resources");
    }
    if (name.startsWith("requests.")) {
      throw new IllegalArgumentException(
          "is prefixed with requests., which resource quotas keep for themselves");
    }
    String domain = "requests." + name.substring(0, slash);
    if (domain.length() > 253 || !DnsNames.isSubdomain(domain)) {
      throw new IllegalArgumentException(
          "has a domain that is not a lowercase DNS subdomain (e.g. example.com)");
    }
    String part = name.substring(slash + 1);
    if (part.length() > 63 || !NAME.matcher(part).matches()) {
      throw new IllegalArgumentException(
          "has a name that is not 1 to 63 letters, digits, -, _ or ., beginning and ending with a"
              + " letter or digit");
    }
    return name;
  }

  /**
   * Whether {@code name} is one of Kubernetes' own resources (its {@code IsNativeResource}): a name
   * without a domain ({@code cpu}, {@code memory}, {@code hugepages-2Mi}) or in the {@code
   * kubernetes.io} domain. Every other name a stored pod carries is an extended resource.
   */
  public static boolean isNative(String name) {
    return name.indexOf('/') < 0 || name.contains("kubernetes.io/");
  }

  private static void check(String what, String name) {
    if (name == null) {
      throw new IllegalArgumentException(what + " has no name");
    }
    try {
      extended(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + " '" + name + "' " + e.getMessage(), e);
    }
  }
}
