package dev.tandem.deviceplugin.allocate;

import dev.tandem.api.container.RdmaDeviceNodes;
import dev.tandem.api.container.RdmaEnvironment;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.inventory.PluginDevice;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.DeviceSpec;
import dev.tandem.topology.model.Device;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What a container gets for its HCA devices: the character devices its HCAs need ({@code
 * /dev/infiniband/uverbsN} of each HCA and {@code /dev/infiniband/rdma_cm}, mode {@code rw}) and
 * the environment of {@link RdmaEnvironment} (the HCAs in rail order). In {@code shared} mode, when
 * the devices were steered to a pod's plan ({@code podHcas}), its HCAs are the pod's: every
 * container of the pod gets the same HCAs named and their character devices, whichever of them its
 * own slots are on. With {@code allocateAllDevices} (config), the container also gets the character
 * devices of every other offered HCA of the node, which {@code NCCL_IB_HCA} and {@code
 * UCX_NET_DEVICES} then name after its own, each group in rail order; the granted ids, their PCI
 * addresses and {@code TANDEM_RDMA_DEVICES} stay its own.
 */
public final class RdmaAnswer implements ContainerAnswer {

  private static final int LISTED_AT_MOST = 8;

  private final Inventory inventory;
  private final Function<String, Optional<String>> uverbs;
  private final Function<List<String>, Optional<List<String>>> podHcas;

  /**
   * @param uverbs the uverbs character device of an HCA (by ibverbs name), when known
   */
  public RdmaAnswer(Inventory inventory, Function<String, Optional<String>> uverbs) {
    this(inventory, uverbs, ids -> Optional.empty());
  }

  /**
   * @param podHcas the HCAs (ibverbs names) of the pod some device ids were steered to, when they
   *     are to be named instead of the container's own ({@code shared} mode)
   */
  public RdmaAnswer(
      Inventory inventory,
      Function<String, Optional<String>> uverbs,
      Function<List<String>, Optional<List<String>>> podHcas) {
    this.inventory = inventory;
    this.uverbs = uverbs;
    this.podHcas = podHcas;
  }

  /** Allocate for the inventory's devices, each container with its own HCAs. */
  public static AllocateResponder responder(
      Inventory inventory, Function<String, Optional<String>> uverbs) {
    return responder(inventory, uverbs, ids -> Optional.empty());
  }

  /** Allocate for the inventory's devices (HCAs, VFs or shared slots). */
  public static AllocateResponder responder(
      Inventory inventory,
      Function<String, Optional<String>> uverbs,
      Function<List<String>, Optional<List<String>>> podHcas) {
    return new AllocateResponder(
        inventory.machine().nodeName(),
        inventory.config().resourceName() + " device id",
        inventory.devices().stream().map(PluginDevice::id).toList(),
        LISTED_AT_MOST,
        new RdmaAnswer(inventory, uverbs, podHcas));
  }

  @Override
  public ContainerAllocateResponse answer(List<String> ids) {
    List<PluginDevice> devices =
        ids.stream().map(id -> inventory.device(id).orElseThrow()).toList();
    List<Device> hcas = hcas(ids, devices);
    List<Device> usable = usable(hcas);
    Set<String> paths = new LinkedHashSet<>();
    List<String> missing = new ArrayList<>();
    for (String hca : names(usable)) {
      uverbs
          .apply(hca)
          .ifPresentOrElse(u -> paths.add(RdmaDeviceNodes.uverbs(u)), () -> missing.add(hca));
    }
    if (!missing.isEmpty()) {
      throw new AllocationException(
          "no uverbs character device known for HCA "
              + String.join(", ", missing.stream().distinct().toList())
              + " on node "
              + inventory.machine().nodeName()
              + " (sysfs has no infiniband_verbs entry; "
              + "is the ib_uverbs module loaded, and does --sysfs-root point at the host's /sys parent?)");
    }
    paths.add(RdmaDeviceNodes.RDMA_CM);
    ContainerAllocateResponse.Builder b =
        ContainerAllocateResponse.newBuilder()
            .putAllEnvs(
                RdmaEnvironment.of(
                    inventory.config().resourceName(), granted(devices), hcas, usable));
    for (String p : paths) {
      b.addDevices(
          DeviceSpec.newBuilder()
              .setContainerPath(p)
              .setHostPath(p)
              .setPermissions(RdmaDeviceNodes.PERMISSIONS));
    }
    return b.build();
  }

  private static List<RdmaEnvironment.Granted> granted(List<PluginDevice> devices) {
    return devices.stream().map(d -> new RdmaEnvironment.Granted(d.id(), d.hca())).toList();
  }

  /**
   * The container's own HCAs, or the pod's when {@code podHcas} knows them, they cover these and
   * the node has them all.
   */
  private List<Device> hcas(List<String> ids, List<PluginDevice> devices) {
    List<Device> own = distinct(devices.stream().map(PluginDevice::hca).toList());
    List<String> ownNames = names(own);
    Map<String, Device> onNode = new HashMap<>();
    inventory.machine().hcas().forEach(h -> onNode.putIfAbsent(h.hca().ibDevice(), h));
    return podHcas
        .apply(ids)
        .filter(pod -> pod.containsAll(ownNames) && onNode.keySet().containsAll(pod))
        .map(pod -> pod.stream().map(onNode::get).toList())
        .orElse(own);
  }

  /**
   * The HCAs whose character devices the container gets: its own, then, with {@code
   * allocateAllDevices}, every other HCA the plugin offers, in the offered order.
   */
  private List<Device> usable(List<Device> hcas) {
    if (!inventory.config().allocateAllDevices()) {
      return hcas;
    }
    List<Device> all = new ArrayList<>(hcas);
    inventory.devices().forEach(d -> all.add(d.hca()));
    return distinct(all);
  }

  /** Each HCA once (by ibverbs name), in this order. */
  private static List<Device> distinct(List<Device> hcas) {
    Map<String, Device> byName = new LinkedHashMap<>();
    hcas.forEach(h -> byName.putIfAbsent(h.hca().ibDevice(), h));
    return List.copyOf(byName.values());
  }

  private static List<String> names(List<Device> hcas) {
    return hcas.stream().map(h -> h.hca().ibDevice()).toList();
  }
}
