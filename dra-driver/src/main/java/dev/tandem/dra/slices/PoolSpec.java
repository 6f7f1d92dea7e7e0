package dev.tandem.dra.slices;

import dev.tandem.api.DnsNames;
import dev.tandem.api.dra.DraDriver;
import dev.tandem.api.identity.DeviceIds;

/**
 * What the driver publishes: under which driver name, and whether the node's GPUs go in the pool
 * beside its HCAs.
 *
 * <ul>
 *   <li><b>joint</b> ({@code gpus}): GPUs and HCAs under one driver, so that one {@code
 *       matchAttribute} constraint over {@code tandem.dev/pcieSwitch} can hold a GPU and an HCA (a
 *       key must exist on both devices, and both must come from one driver's slices for a claim to
 *       name the attribute once). Tandem must then be the only publisher of the node's GPUs.
 *   <li><b>HCA only</b>: beside NVIDIA's GPU DRA driver; alignment across drivers is by the
 *       standard {@code resource.kubernetes.io/pcieRoot} and {@code numaNode} attributes only.
 * </ul>
 *
 * <p>HCAs are published in one of the {@link HcaShape}s: one device per HCA, per SR-IOV VF, or per
 * HCA shared by many claims through {@code sharesPerHca} shares.
 *
 * @param driver the driver name: a lowercase DNS subdomain of at most 63 characters
 * @param gpus whether GPUs are published (joint mode)
 * @param shape how HCAs are published
 * @param sharesPerHca the capacity {@code tandem.dev/shares} of each HCA in the {@code shared}
 *     shape, at least 1; ignored in the others
 */
public record PoolSpec(String driver, boolean gpus, HcaShape shape, int sharesPerHca) {

  /** The driver name Tandem registers by default. */
  public static final String DEFAULT_DRIVER = DraDriver.DEFAULT_NAME;

  /** The longest driver name the API accepts. */
  public static final int MAX_DRIVER_LENGTH = 63;

  public PoolSpec {
    if (driver == null || driver.length() > MAX_DRIVER_LENGTH || !DnsNames.isSubdomain(driver)) {
      throw new InvalidPoolException(
          "the DRA driver name '"
              + driver
              + "' is not a lowercase DNS subdomain of at most "
              + MAX_DRIVER_LENGTH
              + " characters (such as "
              + DEFAULT_DRIVER
              + ")");
    }
    if (shape == null) {
      throw new InvalidPoolException("no HCA shape given for driver " + driver);
    }
    if (sharesPerHca < 1) {
      throw new InvalidPoolException(
          "driver "
              + driver
              + ": "
              + sharesPerHca
              + " shares per HCA cannot be published; each HCA of the shared shape needs at least 1"
              + " (the default is "
              + DeviceIds.DEFAULT_SHARES_PER_HCA
              + ")");
    }
  }

  /** The {@code hca} shape. */
  public PoolSpec(String driver, boolean gpus) {
    this(driver, gpus, HcaShape.HCA, DeviceIds.DEFAULT_SHARES_PER_HCA);
  }

  /** Joint mode under the default driver name, the {@code hca} shape. */
  public static PoolSpec joint() {
    return new PoolSpec(DEFAULT_DRIVER, true);
  }

  /** The same, in another HCA shape. */
  public PoolSpec withShape(HcaShape value) {
    return new PoolSpec(driver, gpus, value, sharesPerHca);
  }
}
