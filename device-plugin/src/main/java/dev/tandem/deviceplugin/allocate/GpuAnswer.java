package dev.tandem.deviceplugin.allocate;

import dev.tandem.api.container.RailOrder;
import dev.tandem.kubelet.deviceplugin.v1beta1.CDIDevice;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.util.Comparator;
import java.util.List;

/**
 * What a container gets for its GPUs, as NVIDIA's device plugin gives it with its default strategy
 * ({@code envvar}): {@code NVIDIA_VISIBLE_DEVICES=<uuid>,<uuid>}, which the NVIDIA container
 * runtime turns into the device nodes and driver libraries; optionally also CDI device names {@code
 * nvidia.com/gpu=<uuid>} (for runtimes with CDI and a generated NVIDIA CDI spec). The GPUs are
 * listed in rail order ({@link RailOrder#gpuIds}: by the rail of the HCAs under their switch), so
 * that in joint mode every rank of a gang lists its GPUs as it lists its HCAs.
 */
public final class GpuAnswer implements ContainerAnswer {

  public static final String NVIDIA_VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
  public static final String CDI_KIND = "nvidia.com/gpu";

  private final boolean cdi;
  private final Comparator<String> order;

  /**
   * @param order the order the GPU ids are listed in
   */
  public GpuAnswer(boolean cdi, Comparator<String> order) {
    this.cdi = cdi;
    this.order = order;
  }

  /** Allocate for the machine's full GPUs (id = UUID), listed in the rail order of its tree. */
  public static AllocateResponder responder(Machine machine, boolean cdi) {
    List<String> ids = machine.gpus().stream().map(Device::id).toList();
    return new AllocateResponder(
        machine.nodeName(),
        "GPU id",
        ids,
        Integer.MAX_VALUE,
        new GpuAnswer(cdi, RailOrder.gpuIds(machine)));
  }

  @Override
  public ContainerAllocateResponse answer(List<String> granted) {
    List<String> ids = granted.stream().sorted(order).toList();
    ContainerAllocateResponse.Builder b =
        ContainerAllocateResponse.newBuilder()
            .putEnvs(NVIDIA_VISIBLE_DEVICES, String.join(",", ids));
    if (cdi) {
      ids.forEach(id -> b.addCdiDevices(CDIDevice.newBuilder().setName(CDI_KIND + "=" + id)));
    }
    return b.build();
  }
}
