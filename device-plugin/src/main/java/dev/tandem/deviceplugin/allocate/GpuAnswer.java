package dev.tandem.deviceplugin.allocate;

import dev.tandem.kubelet.deviceplugin.v1beta1.CDIDevice;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.util.List;

/**
 * What a container gets for its GPUs, as NVIDIA's device plugin gives it with its default strategy
 * ({@code envvar}): {@code NVIDIA_VISIBLE_DEVICES=<uuid>,<uuid>}, which the NVIDIA container
 * runtime turns into the device nodes and driver libraries; optionally also CDI device names {@code
 * nvidia.com/gpu=<uuid>} (for runtimes with CDI and a generated NVIDIA CDI spec).
 */
public final class GpuAnswer implements ContainerAnswer {

  public static final String NVIDIA_VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
  public static final String CDI_KIND = "nvidia.com/gpu";

  private final boolean cdi;

  public GpuAnswer(boolean cdi) {
    this.cdi = cdi;
  }

  /** Allocate for the machine's full GPUs (id = UUID). */
  public static AllocateResponder responder(Machine machine, boolean cdi) {
    List<String> ids = machine.gpus().stream().map(Device::id).toList();
    return new AllocateResponder(
        machine.nodeName(), "GPU id", ids, Integer.MAX_VALUE, new GpuAnswer(cdi));
  }

  @Override
  public ContainerAllocateResponse answer(List<String> ids) {
    ContainerAllocateResponse.Builder b =
        ContainerAllocateResponse.newBuilder()
            .putEnvs(NVIDIA_VISIBLE_DEVICES, String.join(",", ids));
    if (cdi) {
      ids.forEach(id -> b.addCdiDevices(CDIDevice.newBuilder().setName(CDI_KIND + "=" + id)));
    }
    return b.build();
  }
}
