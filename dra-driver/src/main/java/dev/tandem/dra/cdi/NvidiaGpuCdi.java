package dev.tandem.dra.cdi;

import dev.tandem.topology.model.Device;

/**
 * The CDI name of a GPU in the spec NVIDIA's container toolkit generates on the node ({@code
 * nvidia-ctk cdi generate}, or its {@code nvidia-cdi-refresh} service): kind {@code
 * nvidia.com/gpu}, each GPU named by its index and by its UUID (the toolkit's default since it
 * could name by several strategies at once, NVIDIA/nvidia-container-toolkit#314), plus {@code all}.
 * Tandem gives the UUID form, which does not depend on enumeration order. The driver never writes
 * that spec.
 */
public final class NvidiaGpuCdi {

  public static final String KIND = "nvidia.com/gpu";

  private NvidiaGpuCdi() {}

  /**
   * {@code nvidia.com/gpu=GPU-<uuid>}.
   *
   * @throws CdiException when the GPU is known by no UUID (a VM's topology file names it by bus id)
   */
  public static String id(Device gpu) {
    if (!gpu.id().startsWith("GPU-")) {
      throw new CdiException(
          "GPU "
              + gpu.id()
              + " is known by no UUID, and NVIDIA's CDI spec names GPUs by UUID or index; run"
              + " discovery with NVML (the GPU driver's libnvidia-ml) so the GPU's UUID is known");
    }
    return KIND + "=" + gpu.id();
  }
}
