package dev.tandem.api.container;

/**
 * The character devices a container needs for its HCAs: the uverbs device of each ({@code
 * /dev/infiniband/uverbsN}) and the RDMA connection manager ({@code /dev/infiniband/rdma_cm}). The
 * device plugin's Allocate and the DRA driver's CDI specs hand out the same paths, from here.
 */
public final class RdmaDeviceNodes {

  /** Where the kernel puts the RDMA character devices. */
  public static final String DEV_DIR = "/dev/infiniband/";

  /** The RDMA connection manager's device, which every RDMA container needs once. */
  public static final String RDMA_CM = DEV_DIR + "rdma_cm";

  /** The cgroup permissions each device is handed out with. */
  public static final String PERMISSIONS = "rw";

  private RdmaDeviceNodes() {}

  /** The path of an HCA's uverbs device, from its name in sysfs ({@code uverbs0}). */
  public static String uverbs(String name) {
    return DEV_DIR + name;
  }
}
