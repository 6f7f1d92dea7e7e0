package dev.tandem.deviceplugin.allocate;

import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.inventory.PluginDevice;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.DeviceSpec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What a container gets for its HCA devices: the character devices its HCAs need ({@code
 * /dev/infiniband/uverbsN} of each HCA and {@code /dev/infiniband/rdma_cm}, mode {@code rw}) and
 * the environment of {@link RdmaEnvironment}.
 */
public final class RdmaAnswer implements ContainerAnswer {

  public static final String DEV_DIR = "/dev/infiniband/";
  public static final String RDMA_CM = DEV_DIR + "rdma_cm";
  private static final int LISTED_AT_MOST = 8;

  private final Inventory inventory;
  private final Function<String, Optional<String>> uverbs;

  /**
   * @param uverbs the uverbs character device of an HCA (by ibverbs name), when known
   */
  public RdmaAnswer(Inventory inventory, Function<String, Optional<String>> uverbs) {
    this.inventory = inventory;
    this.uverbs = uverbs;
  }

  /** Allocate for the inventory's devices (HCAs, VFs or shared slots). */
  public static AllocateResponder responder(
      Inventory inventory, Function<String, Optional<String>> uverbs) {
    return new AllocateResponder(
        inventory.machine().nodeName(),
        inventory.config().resourceName() + " device id",
        inventory.devices().stream().map(PluginDevice::id).toList(),
        LISTED_AT_MOST,
        new RdmaAnswer(inventory, uverbs));
  }

  @Override
  public ContainerAllocateResponse answer(List<String> ids) {
    List<PluginDevice> devices =
        ids.stream().map(id -> inventory.device(id).orElseThrow()).toList();
    Set<String> paths = new LinkedHashSet<>();
    List<String> missing = new ArrayList<>();
    for (PluginDevice d : devices) {
      uverbs
          .apply(d.ibDevice())
          .ifPresentOrElse(u -> paths.add(DEV_DIR + u), () -> missing.add(d.ibDevice()));
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
    paths.add(RDMA_CM);
    ContainerAllocateResponse.Builder b =
        ContainerAllocateResponse.newBuilder()
            .putAllEnvs(RdmaEnvironment.of(inventory.config().resourceName(), devices));
    for (String p : paths) {
      b.addDevices(DeviceSpec.newBuilder().setContainerPath(p).setHostPath(p).setPermissions("rw"));
    }
    return b.build();
  }
}
