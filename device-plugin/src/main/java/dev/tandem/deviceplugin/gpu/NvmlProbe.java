package dev.tandem.deviceplugin.gpu;

import dev.tandem.discovery.nvml.Nvml;
import dev.tandem.discovery.nvml.NvmlException;
import dev.tandem.discovery.nvml.NvmlSession;
import dev.tandem.topology.model.Device;
import java.util.Optional;

/**
 * GPU health from NVML (topology-discovery's {@link Nvml}, the binding the agent uses too): a GPU
 * is healthy when NVML finds it by UUID. Holds one NVML session from {@link #open} to {@link
 * #close} (the plugin's start and stop). A GPU not named by a UUID, or a question asked after
 * close, cannot be told.
 */
public final class NvmlProbe implements GpuHealthProbe, AutoCloseable {

  private final NvmlSession session;

  private NvmlProbe(NvmlSession session) {
    this.session = session;
  }

  /** The outcome of opening NVML: the probe, or none; and a note for the log saying which. */
  public record Opened(Optional<NvmlProbe> probe, String note) {}

  /**
   * Opens NVML from {@code library} (a name the loader finds, or a path). Never throws: a library
   * that does not load or a driver that does not answer is a note, and health comes from procfs and
   * sysfs alone.
   */
  public static Opened open(String library) {
    try {
      NvmlProbe probe = new NvmlProbe(new Nvml(library).open());
      return new Opened(
          Optional.of(probe), "NVML (" + library + ") open: GPU health from NVML and procfs/sysfs");
    } catch (NvmlException e) {
      return new Opened(Optional.empty(), e.getMessage() + "; GPU health from procfs/sysfs only");
    }
  }

  @Override
  public Optional<Boolean> healthy(Device gpu) {
    if (!gpu.id().startsWith("GPU-")) {
      return Optional.empty();
    }
    try {
      return Optional.of(session.finds(gpu.id()));
    } catch (NvmlException e) {
      return Optional.empty();
    }
  }

  /** Shuts this probe's NVML session down. */
  @Override
  public void close() {
    session.close();
  }
}
