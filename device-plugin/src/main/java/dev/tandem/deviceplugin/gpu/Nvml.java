package dev.tandem.deviceplugin.gpu;

import com.sun.jna.Native;
import com.sun.jna.ptr.PointerByReference;
import dev.tandem.discovery.NvmlLibrary;
import dev.tandem.topology.model.Device;
import java.util.Optional;

/**
 * NVML through JNA, when {@code libnvidia-ml.so.1} loads and initialises: a GPU is healthy when
 * NVML finds it by UUID. {@link #load} never throws: a missing library (no driver on this host, or
 * not mounted into the container) is a note, and health falls back to procfs.
 */
public final class Nvml implements GpuHealthProbe {

  public static final String LIBRARY = "nvidia-ml";

  private final NvmlLibrary lib;

  private Nvml(NvmlLibrary lib) {
    this.lib = lib;
  }

  /** The outcome of trying to load NVML: the probe, or a note saying why not. */
  public record Loaded(Optional<Nvml> nvml, String note) {}

  public static Loaded load(String libraryName) {
    NvmlLibrary lib;
    try {
      lib = Native.load(libraryName, NvmlLibrary.class);
    } catch (UnsatisfiedLinkError e) {
      return new Loaded(
          Optional.empty(),
          "NVML library lib"
              + libraryName
              + ".so.1 not loadable ("
              + e.getMessage().lines().findFirst().orElse("not found")
              + "); GPU health from procfs/sysfs only");
    }
    int rc;
    try {
      rc = lib.nvmlInit_v2();
    } catch (UnsatisfiedLinkError e) {
      return new Loaded(
          Optional.empty(),
          "lib" + libraryName + " has no nvmlInit_v2; GPU health from procfs/sysfs only");
    }
    if (rc != NvmlLibrary.SUCCESS) {
      return new Loaded(
          Optional.empty(), "nvmlInit_v2 returned " + rc + "; GPU health from procfs/sysfs only");
    }
    return new Loaded(
        Optional.of(new Nvml(lib)), "NVML loaded: GPU health from NVML and procfs/sysfs");
  }

  @Override
  public Optional<Boolean> healthy(Device gpu) {
    if (!gpu.id().startsWith("GPU-")) {
      return Optional.empty();
    }
    return Optional.of(
        lib.nvmlDeviceGetHandleByUUID(gpu.id(), new PointerByReference()) == NvmlLibrary.SUCCESS);
  }
}
