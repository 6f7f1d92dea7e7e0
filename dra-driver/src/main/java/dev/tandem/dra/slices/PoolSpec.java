package dev.tandem.dra.slices;

import dev.tandem.api.DnsNames;

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
 * <p>HCAs are published one device per HCA ({@code hca} shape); the {@code sriov} and {@code
 * shared} shapes are designed in docs/dra.md.
 *
 * @param driver the driver name: a lowercase DNS subdomain of at most 63 characters
 * @param gpus whether GPUs are published (joint mode)
 */
public record PoolSpec(String driver, boolean gpus) {

  /** The driver name Tandem registers by default. */
  public static final String DEFAULT_DRIVER = "tandem.dev";

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
  }

  /** Joint mode under the default driver name. */
  public static PoolSpec joint() {
    return new PoolSpec(DEFAULT_DRIVER, true);
  }
}
