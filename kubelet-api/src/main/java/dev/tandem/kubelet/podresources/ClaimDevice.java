package dev.tandem.kubelet.podresources;

import java.util.Objects;

/**
 * One device a container holds through a DRA ResourceClaim, as the kubelet's PodResources {@code
 * List} reports it ({@code ContainerResources.dynamic_resources}: the claim and, per device, the
 * driver, pool and device name of its allocation).
 *
 * @param claimNamespace the claim's namespace
 * @param claimName the claim's name
 * @param driver the DRA driver that published the device, e.g. {@code tandem.dev}
 * @param pool the pool the device belongs to (Tandem's driver names it after the node)
 * @param device the device's name in its pool
 */
public record ClaimDevice(
    String claimNamespace, String claimName, String driver, String pool, String device) {

  public ClaimDevice {
    Objects.requireNonNull(claimNamespace, "claimNamespace");
    Objects.requireNonNull(claimName, "claimName");
    Objects.requireNonNull(driver, "driver");
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(device, "device");
  }

  /** The claim as {@code namespace/name}. */
  public String claim() {
    return claimNamespace + "/" + claimName;
  }
}
