package dev.tandem.deviceplugin.allocate;

import dev.tandem.deviceplugin.inventory.DeviceTable;
import dev.tandem.deviceplugin.inventory.PluginDevice;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.DeviceSpec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Answers Allocate: per container request, in order, the character devices its HCAs need ({@code
 * /dev/infiniband/uverbsN} of each HCA and {@code /dev/infiniband/rdma_cm}, mode {@code rw}) and
 * the environment of {@link RdmaEnvironment}. Pure; reads the table's snapshot.
 */
public final class AllocateResponder {

  public static final String DEV_DIR = "/dev/infiniband/";
  public static final String RDMA_CM = DEV_DIR + "rdma_cm";

  private final DeviceTable table;

  public AllocateResponder(DeviceTable table) {
    this.table = table;
  }

  public AllocateResponse allocate(AllocateRequest request) {
    AllocateResponse.Builder out = AllocateResponse.newBuilder();
    for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
      out.addContainerResponses(container(c.getDevicesIdsList()));
    }
    return out.build();
  }

  private ContainerAllocateResponse container(List<String> ids) {
    List<PluginDevice> devices = resolve(ids);
    Set<String> paths = new LinkedHashSet<>();
    List<String> missing = new ArrayList<>();
    for (PluginDevice d : devices) {
      table
          .uverbs(d.ibDevice())
          .ifPresentOrElse(u -> paths.add(DEV_DIR + u), () -> missing.add(d.ibDevice()));
    }
    if (!missing.isEmpty()) {
      throw new AllocationException(
          "no uverbs character device known for HCA "
              + String.join(", ", missing.stream().distinct().toList())
              + " on node "
              + table.inventory().machine().nodeName()
              + " (sysfs has no infiniband_verbs entry; "
              + "is the ib_uverbs module loaded, and does --sysfs-root point at the host's /sys parent?)");
    }
    paths.add(RDMA_CM);
    ContainerAllocateResponse.Builder b =
        ContainerAllocateResponse.newBuilder().putAllEnvs(RdmaEnvironment.of(devices));
    for (String p : paths) {
      b.addDevices(DeviceSpec.newBuilder().setContainerPath(p).setHostPath(p).setPermissions("rw"));
    }
    return b.build();
  }

  private List<PluginDevice> resolve(List<String> ids) {
    List<PluginDevice> out = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    for (String id : ids) {
      table.inventory().device(id).ifPresentOrElse(out::add, () -> unknown.add(id));
    }
    if (!unknown.isEmpty()) {
      throw new AllocationException(
          "unknown "
              + table.inventory().config().resourceName()
              + " device id"
              + (unknown.size() == 1 ? " " : "s ")
              + String.join(", ", unknown)
              + " on node "
              + table.inventory().machine().nodeName()
              + "; this plugin offers "
              + describe());
    }
    return out;
  }

  private String describe() {
    List<String> ids = table.inventory().devices().stream().map(PluginDevice::id).toList();
    return ids.size() <= 8
        ? String.join(", ", ids)
        : ids.size() + " devices such as " + String.join(", ", ids.subList(0, 4));
  }
}
