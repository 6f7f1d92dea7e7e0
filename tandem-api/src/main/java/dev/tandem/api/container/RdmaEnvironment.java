package dev.tandem.api.container;

import dev.tandem.topology.model.Device;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The environment a container gets for its HCAs, listing each HCA once, in rail order ({@link
 * RailOrder#hcas}: ascending rail, HCAs on no rail after, in the order given), so that every rank
 * of a gang lists its HCAs the same way. The device plugin's Allocate and the DRA driver's CDI
 * specs give the same variables, from here:
 *
 * <ul>
 *   <li>{@code NCCL_IB_HCA=<ibdev>,<ibdev>} prefixed with {@code =} (NCCL's exact-match form, so
 *       {@code mlx5_1} does not also select {@code mlx5_10}): the HCAs the container may use (its
 *       own, then with {@code allocateAllDevices} every other HCA handed to it);
 *   <li>{@code UCX_NET_DEVICES=<ibdev>:1,…} (UCX wants device:port; port 1): the same HCAs;
 *   <li>{@code TANDEM_RDMA_DEVICES=<ibdev>,…} plain ibverbs names of its own HCAs (those chosen for
 *       it, near its GPUs);
 *   <li>{@code TANDEM_RDMA_DEVICE_IDS=<id>,…} the ids the devices were granted under (the kubelet
 *       device ids; the DRA driver's device names);
 *   <li>{@code PCIDEVICE_<RESOURCE>=<pci>,…} the PCI addresses of the devices (the VFs in {@code
 *       sriov} mode, the HCAs otherwise), each once, named and formatted as the SR-IOV network
 *       device plugin names its variable, so that tools written for that plugin find them ({@link
 *       #pciDeviceVariable}); left out when no device has a known PCI address.
 * </ul>
 *
 * <p>An HCA that serves its GPU through ConnectX-8 Data Direct ({@code HcaInfo.dataDirect}) is
 * named the same way, by its ibverbs name: NCCL matches {@code NCCL_IB_HCA} against the ibverbs
 * device's name before it asks libmlx5 for the Data Direct path, and only then names the device it
 * uses {@code <ibdev>_dma} with the Data Direct function's sysfs path (NVIDIA/nccl {@code
 * src/transport/net_ib/init.cc}, {@code ncclIbInitDevices}). {@code mlx5_0_dma} in {@code
 * NCCL_IB_HCA} would match no device. {@code NCCL_IB_DATA_DIRECT} is not set: NCCL's default (1)
 * already uses the Data Direct device, and an operator's own value stays in force.
 */
public final class RdmaEnvironment {

  public static final String NCCL_IB_HCA = "NCCL_IB_HCA";
  public static final String UCX_NET_DEVICES = "UCX_NET_DEVICES";
  public static final String TANDEM_RDMA_DEVICES = "TANDEM_RDMA_DEVICES";
  public static final String TANDEM_RDMA_DEVICE_IDS = "TANDEM_RDMA_DEVICE_IDS";

  /** The prefix of the SR-IOV network device plugin's variable. */
  public static final String PCIDEVICE_PREFIX = "PCIDEVICE_";

  private RdmaEnvironment() {}

  /**
   * One granted device: the id it was granted under (an ibverbs name, a VF's PCI address, a shared
   * slot) and the HCA (or VF) of the node's tree behind it.
   */
  public record Granted(String id, Device hca) {

    /** The ibverbs name of the HCA behind it, e.g. {@code mlx5_0}. */
    public String ibDevice() {
      return hca.hca().ibDevice();
    }
  }

  /**
   * The SR-IOV network device plugin's variable name for a resource: {@code PCIDEVICE_} then the
   * resource name upper-cased with every character other than a letter, a digit or {@code _}
   * replaced by {@code _}. For the names that plugin accepts ({@code <prefix>/<name>}, dots in the
   * prefix, the name of letters, digits and {@code _}) this is exactly its name ({@code
   * intel.com/sriov_a} gives {@code PCIDEVICE_INTEL_COM_SRIOV_A}); the dashes a Kubernetes resource
   * name may also carry become {@code _}, so the name stays a shell identifier.
   */
  public static String pciDeviceVariable(String resourceName) {
    StringBuilder b = new StringBuilder(PCIDEVICE_PREFIX);
    for (char c : resourceName.toCharArray()) {
      boolean keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      b.append(keep ? Character.toUpperCase(c) : '_');
    }
    return b.toString();
  }

  /**
   * @param resourceName the resource the devices are of, which names {@code PCIDEVICE_<RESOURCE>}
   */
  public static Map<String, String> of(String resourceName, List<Granted> devices) {
    List<Device> hcas = devices.stream().map(Granted::hca).toList();
    return of(resourceName, devices, hcas, hcas);
  }

  /**
   * As {@link #of(String, List)}, {@code NCCL_IB_HCA}, {@code UCX_NET_DEVICES} and {@code
   * TANDEM_RDMA_DEVICES} naming {@code hcas} (the container's own, or its pod's when every
   * container of the pod is to name the same), and {@code NCCL_IB_HCA} and {@code UCX_NET_DEVICES}
   * then the rest of {@code usable} (the other HCAs handed to the container). Each list is in rail
   * order ({@link RailOrder#hcas}), each HCA once.
   */
  public static Map<String, String> of(
      String resourceName, List<Granted> devices, List<Device> hcas, List<Device> usable) {
    return env(resourceName, devices, names(hcas), names(usable));
  }

  /** The ibverbs names of these HCAs in rail order, each once. */
  private static List<String> names(List<Device> hcas) {
    return RailOrder.hcas(hcas).stream().map(d -> d.hca().ibDevice()).distinct().toList();
  }

  private static Map<String, String> env(
      String resourceName, List<Granted> devices, List<String> hcas, List<String> others) {
    Set<String> usable = new LinkedHashSet<>(hcas);
    usable.addAll(others);
    Map<String, String> env = new LinkedHashMap<>();
    env.put(NCCL_IB_HCA, "=" + String.join(",", usable));
    env.put(UCX_NET_DEVICES, usable.stream().map(h -> h + ":1").collect(Collectors.joining(",")));
    env.put(TANDEM_RDMA_DEVICES, String.join(",", hcas));
    env.put(
        TANDEM_RDMA_DEVICE_IDS, devices.stream().map(Granted::id).collect(Collectors.joining(",")));
    List<String> pci =
        devices.stream()
            .filter(d -> d.hca().address() != null)
            .map(d -> d.hca().address().toString())
            .distinct()
            .toList();
    if (!pci.isEmpty()) {
      env.put(pciDeviceVariable(resourceName), String.join(",", pci));
    }
    return env;
  }
}
