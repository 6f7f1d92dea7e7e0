package dev.tandem.deviceplugin.gpu;

import dev.tandem.deviceplugin.allocate.AllocationException;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.CDIDevice;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.topology.model.Device;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers Allocate for GPUs as NVIDIA's device plugin does with its default strategy ({@code
 * envvar}): {@code NVIDIA_VISIBLE_DEVICES=<uuid>,<uuid>}, which the NVIDIA container runtime turns
 * into the device nodes and driver libraries; optionally also CDI device names {@code
 * nvidia.com/gpu=<uuid>} (for runtimes with CDI and a generated NVIDIA CDI spec). One response per
 * container request, in order. Pure.
 */
public final class GpuAllocateResponder {

  public static final String NVIDIA_VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
  public static final String CDI_KIND = "nvidia.com/gpu";

  private final GpuTable table;
  private final boolean cdi;

  public GpuAllocateResponder(GpuTable table, boolean cdi) {
    this.table = table;
    this.cdi = cdi;
  }

  public AllocateResponse allocate(AllocateRequest request) {
    AllocateResponse.Builder out = AllocateResponse.newBuilder();
    for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
      out.addContainerResponses(container(c.getDevicesIdsList()));
    }
    return out.build();
  }

  private ContainerAllocateResponse container(List<String> ids) {
    List<String> unknown = new ArrayList<>();
    for (String id : ids) {
      if (table.gpu(id).isEmpty()) {
        unknown.add(id);
      }
    }
    if (!unknown.isEmpty()) {
      List<String> offered = table.gpus().stream().map(Device::id).toList();
      throw new AllocationException(
          "unknown GPU id"
              + (unknown.size() == 1 ? " " : "s ")
              + String.join(", ", unknown)
              + " on node "
              + table.machine().nodeName()
              + "; this plugin offers "
              + String.join(", ", offered));
    }
    ContainerAllocateResponse.Builder b =
        ContainerAllocateResponse.newBuilder()
            .putEnvs(NVIDIA_VISIBLE_DEVICES, String.join(",", ids));
    if (cdi) {
      ids.forEach(id -> b.addCdiDevices(CDIDevice.newBuilder().setName(CDI_KIND + "=" + id)));
    }
    return b.build();
  }
}
