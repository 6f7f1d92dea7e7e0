package dev.tandem.deviceplugin.gpu;

import dev.tandem.topology.model.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The NVIDIA driver's view of a GPU from procfs and sysfs under a root: healthy when {@code
 * <root>/proc/driver/nvidia/gpus/<pci>/information} exists (the driver has bound the GPU) and, when
 * {@code <root>/sys/bus/pci/devices} exists, the PCI device is still there (a GPU that fell off the
 * bus disappears from it). When {@code <root>/proc/driver/nvidia/gpus} is absent the driver is not
 * visible (not loaded, or not mounted into the container): the probe cannot tell. Blocking file
 * I/O: call it from a worker thread.
 */
public final class DriverProcfs implements GpuHealthProbe {

  private final Path root;

  public DriverProcfs(Path root) {
    this.root = root;
  }

  public Path gpusDir() {
    return root.resolve("proc/driver/nvidia/gpus");
  }

  @Override
  public Optional<Boolean> healthy(Device gpu) {
    if (gpu.address() == null || !Files.isDirectory(gpusDir())) {
      return Optional.empty();
    }
    String pci = gpu.address().toString();
    boolean bound = Files.isReadable(gpusDir().resolve(pci).resolve("information"));
    Path pciDevices = root.resolve("sys/bus/pci/devices");
    boolean onBus = !Files.isDirectory(pciDevices) || Files.exists(pciDevices.resolve(pci));
    return Optional.of(bound && onBus);
  }
}
