package dev.tandem.api.identity;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The one mapping between the ids the kubelet reports for devices and the devices of a node's tree.
 * The device plugin names what it offers with the static methods; the agent (audit, units) and the
 * extender (free devices) read reported ids back with {@link #device(String)}. A kubelet id stands
 * for exactly one device of the tree:
 *
 * <table>
 *   <caption>Kubelet ids and the device each stands for</caption>
 *   <tr><th>kind</th><th>id the kubelet reports</th><th>device of the tree</th></tr>
 *   <tr><td>whole HCA ({@code hca} mode)</td><td>ibverbs name, {@code mlx5_0}</td>
 *       <td>the HCA of that ibverbs name</td></tr>
 *   <tr><td>shared slot ({@code shared} mode)</td><td>{@code mlx5_0-slot-7}</td>
 *       <td>the HCA {@code mlx5_0}</td></tr>
 *   <tr><td>VF ({@code sriov} mode)</td><td>the VF's PCI address, {@code 0000:3b:00.2}</td>
 *       <td>the VF (its PF is {@code hca.physicalFunction})</td></tr>
 *   <tr><td>GPU</td><td>UUID, {@code GPU-…}</td><td>the GPU of that UUID</td></tr>
 *   <tr><td>time-sliced GPU replica (NVIDIA's plugin)</td><td>{@code GPU-…::3}</td>
 *       <td>the GPU before {@code ::}</td></tr>
 *   <tr><td>GPU known by bus id (a VM's NCCL topology file)</td><td>{@code 0000:17:00.0}</td>
 *       <td>the GPU at that PCI address</td></tr>
 *   <tr><td>MIG device, current drivers</td><td>{@code MIG-<uuid>}</td>
 *       <td>its GPU, by the node's {@link MigLayout} ({@code status.mig})</td></tr>
 *   <tr><td>MIG device, older drivers</td><td>{@code MIG-GPU-<uuid>/<gi>/<ci>}</td>
 *       <td>the GPU {@code GPU-<uuid>}</td></tr>
 * </table>
 *
 * <p>A time-sliced MIG device ({@code MIG-…::2}) stands for the GPU its MIG device stands for. A
 * current-form MIG id the layout does not know resolves to nothing. Pure and immutable; resolution
 * scans the machine's few devices rather than keeping an index, so that a cluster of many nodes
 * holds no second copy of every tree.
 *
 * <p>The DRA driver names the devices it publishes in its ResourceSlices with {@link
 * #draName(Device)} (a DNS label), and every component reads allocated DRA device names back with
 * {@link #draDevice(String)}:
 *
 * <table>
 *   <caption>DRA device names</caption>
 *   <tr><th>kind</th><th>DRA device name</th></tr>
 *   <tr><td>GPU</td><td>its UUID, normalised: {@code GPU-4cf8…} gives {@code gpu-4cf8…}; a GPU
 *       known by bus id gets {@code gpu-} before it ({@code gpu-0000-17-00-0})</td></tr>
 *   <tr><td>whole HCA</td><td>its ibverbs name, normalised: {@code mlx5_0} gives {@code
 *       mlx5-0}</td></tr>
 *   <tr><td>HCA without ibverbs name (RDMA driver not loaded)</td><td>{@code hca-} and its PCI
 *       address (or tree id), normalised: {@code hca-0000-3b-00-0}</td></tr>
 * </table>
 *
 * <p>Normalised: lower case, every character other than a letter or a digit turned into {@code -},
 * leading and trailing {@code -} dropped. Two devices that normalise to one name cannot both be
 * published ({@link #draNames}).
 */
public final class DeviceIds {

  /**
   * How many holders one shared HCA admits unless configured otherwise, on both delivery paths: the
   * device plugin's {@code slotsPerHca} of a {@code shared} resource, and the DRA driver's
   * consumable {@code tandem.dev/shares} per HCA of {@code --mode shared}.
   */
  public static final int DEFAULT_SHARES_PER_HCA = 1000;

  /** Between an HCA's ibverbs name and its slot number in {@code shared} mode. */
  public static final String SLOT_SEPARATOR = "-slot-";

  /** Between a GPU's id and its replica number, as NVIDIA's plugin writes time-sliced replicas. */
  public static final String REPLICA_SEPARATOR = "::";

  /** The longest DRA device name: a DNS label (RFC 1123). */
  public static final int DRA_NAME_MAX_LENGTH = 63;

  private static final String DRA_GPU_PREFIX = "gpu-";
  private static final String DRA_UNNAMED_HCA_PREFIX = "hca-";

  private final Machine machine;
  private final MigLayout mig;

  private DeviceIds(Machine machine, MigLayout mig) {
    this.machine = Objects.requireNonNull(machine, "machine");
    this.mig = Objects.requireNonNull(mig, "mig");
  }

  /** The mapping for one node's tree, without MIG devices of the current form. */
  public static DeviceIds of(Machine machine) {
    return new DeviceIds(machine, MigLayout.NONE);
  }

  /** The mapping for one node's tree and the MIG devices its agent published. */
  public static DeviceIds of(Machine machine, MigLayout mig) {
    return new DeviceIds(machine, mig);
  }

  // ---- the ids the device plugin offers

  /**
   * A whole HCA's id ({@code hca} mode): its ibverbs name.
   *
   * @throws IllegalArgumentException when the HCA has no ibverbs name (its RDMA driver is not
   *     loaded): no container could use it, so it has no id
   */
  public static String wholeHca(Device hca) {
    return ibDevice(hca);
  }

  /** Slot {@code n} of a shared HCA: {@code <ibverbs name>-slot-<n>}. */
  public static String slot(Device hca, int n) {
    if (n < 0) {
      throw new IllegalArgumentException("slot number must not be negative, got " + n);
    }
    return ibDevice(hca) + SLOT_SEPARATOR + n;
  }

  /**
   * A VF's id ({@code sriov} mode): its PCI address, as SR-IOV CNI and Multus expect it.
   *
   * @throws IllegalArgumentException when the device is not a VF with a PCI address
   */
  public static String virtualFunction(Device vf) {
    if (vf.hca() == null || !vf.hca().virtualFunction() || vf.address() == null) {
      throw new IllegalArgumentException(
          "device " + vf.id() + " is not an SR-IOV VF with a PCI address; it has no VF id");
    }
    return vf.address().toString();
  }

  private static String ibDevice(Device hca) {
    String name = hca.hca() == null ? null : hca.hca().ibDevice();
    if (name == null) {
      throw new IllegalArgumentException(
          "HCA "
              + hca.id()
              + " has no ibverbs name (its RDMA driver is not loaded), so it has no kubelet id");
    }
    return name;
  }

  // ---- DRA device names

  /**
   * The name a DRA driver publishes a device under (see the class comment): a DNS label, the same
   * on every start for the same device.
   *
   * @throws IllegalArgumentException when the name would be longer than a DNS label allows
   */
  public static String draName(Device device) {
    String name;
    if (device.kind() == DeviceKind.GPU) {
      String n = normalise(device.id());
      name = n.startsWith(DRA_GPU_PREFIX) ? n : DRA_GPU_PREFIX + n;
    } else if (device.hca() != null && device.hca().ibDevice() != null) {
      name = normalise(device.hca().ibDevice());
    } else {
      name =
          DRA_UNNAMED_HCA_PREFIX
              + normalise(device.address() != null ? device.address().toString() : device.id());
    }
    if (name.isEmpty() || name.length() > DRA_NAME_MAX_LENGTH) {
      throw new IllegalArgumentException(
          "device "
              + device.id()
              + " would be published under the DRA device name '"
              + name
              + "', which is not a DNS label of 1 to "
              + DRA_NAME_MAX_LENGTH
              + " characters; give the device a shorter name (an ibverbs name set by a udev rule)"
              + " or leave it out of the driver's devices");
    }
    return name;
  }

  /**
   * The DRA names of devices to publish together, in their order.
   *
   * @throws IllegalArgumentException naming both devices when two normalise to one name
   */
  public Map<String, Device> draNames(Collection<Device> devices) {
    Map<String, Device> out = new LinkedHashMap<>();
    for (Device d : devices) {
      Device other = out.putIfAbsent(draName(d), d);
      if (other != null) {
        throw new IllegalArgumentException(
            "devices "
                + other.id()
                + " and "
                + d.id()
                + " of node "
                + machine.nodeName()
                + " both normalise to the DRA device name '"
                + draName(d)
                + "' (lower case, every character other than a letter or digit as -), and a pool"
                + " cannot hold one name twice; rename one of them (a udev rule for ibverbs"
                + " names) or leave one out of the driver's devices");
      }
    }
    return out;
  }

  /** The device of the tree a DRA device name (as {@link #draName} gives it) stands for. */
  public Optional<Device> draDevice(String draName) {
    if (draName == null || draName.isEmpty()) {
      return Optional.empty();
    }
    for (Device d : machine.devices()) {
      if (draName.equals(draNameOrNull(d))) {
        return Optional.of(d);
      }
    }
    return Optional.empty();
  }

  private static String draNameOrNull(Device d) {
    try {
      return draName(d);
    } catch (IllegalArgumentException tooLong) {
      return null;
    }
  }

  private static String normalise(String text) {
    StringBuilder b = new StringBuilder(text.length());
    for (char c : text.toLowerCase(Locale.ROOT).toCharArray()) {
      b.append((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '-');
    }
    int from = 0;
    int to = b.length();
    while (from < to && b.charAt(from) == '-') {
      from++;
    }
    while (to > from && b.charAt(to - 1) == '-') {
      to--;
    }
    return b.substring(from, to);
  }

  // ---- reading reported ids back

  /** The device of the tree a kubelet id stands for; empty when it stands for none. */
  public Optional<Device> device(String kubeletId) {
    if (kubeletId == null || kubeletId.isEmpty()) {
      return Optional.empty();
    }
    Optional<Device> exact = machine.device(kubeletId);
    if (exact.isPresent()) {
      return exact;
    }
    int replica = kubeletId.indexOf(REPLICA_SEPARATOR);
    if (replica > 0 && isNumber(kubeletId, replica + REPLICA_SEPARATOR.length())) {
      return device(kubeletId.substring(0, replica)).filter(d -> d.kind() == DeviceKind.GPU);
    }
    if (MigLayout.isMig(kubeletId)) {
      return mig.gpuOf(kubeletId).flatMap(machine::device).filter(d -> d.kind() == DeviceKind.GPU);
    }
    int slot = kubeletId.lastIndexOf(SLOT_SEPARATOR);
    if (slot > 0 && isNumber(kubeletId, slot + SLOT_SEPARATOR.length())) {
      Optional<Device> hca = byIbDevice(kubeletId.substring(0, slot));
      if (hca.isPresent()) {
        return hca;
      }
    }
    return byIbDevice(kubeletId).or(() -> byAddress(kubeletId));
  }

  /** The tree's id of the device a kubelet id stands for; empty when it stands for none. */
  public Optional<String> treeId(String kubeletId) {
    return device(kubeletId).map(Device::id);
  }

  private Optional<Device> byIbDevice(String name) {
    for (Device d : machine.devices()) {
      if (d.hca() != null && name.equals(d.hca().ibDevice())) {
        return Optional.of(d);
      }
    }
    return Optional.empty();
  }

  private Optional<Device> byAddress(String text) {
    if (text.indexOf(':') < 0 || text.indexOf('.') < 0) {
      return Optional.empty();
    }
    PciAddress address;
    try {
      address = PciAddress.parse(text);
    } catch (IllegalArgumentException notAnAddress) {
      return Optional.empty();
    }
    for (Device d : machine.devices()) {
      if (address.equals(d.address())) {
        return Optional.of(d);
      }
    }
    return Optional.empty();
  }

  private static boolean isNumber(String s, int from) {
    if (from >= s.length()) {
      return false;
    }
    for (int i = from; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }
}
