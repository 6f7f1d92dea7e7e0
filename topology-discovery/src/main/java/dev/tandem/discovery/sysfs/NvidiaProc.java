package dev.tandem.discovery.sysfs;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import java.nio.file.Path;
import java.util.List;

/** NVIDIA GPU UUIDs and models from {@code /proc/driver/nvidia/gpus/<address>/information}. */
public final class NvidiaProc {

  record Info(String uuid, String model) {}

  private NvidiaProc() {}

  static Info read(HostFiles files, PciAddress address) {
    Path f = files.host("/proc/driver/nvidia/gpus/" + address + "/information");
    String uuid = null;
    String model = null;
    for (String line : HostFiles.lines(f)) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String key = line.substring(0, colon).trim();
      String value = line.substring(colon + 1).trim();
      if (key.equals("GPU UUID")) {
        uuid = value;
      } else if (key.equals("Model")) {
        model = value;
      }
    }
    return uuid == null && model == null ? null : new Info(uuid, model);
  }

  /** GPUs that hwloc could only name by PCI address (no NVML plugin) get the driver's UUID. */
  public static Machine withUuids(Machine m, Path root, List<String> notes) {
    HostFiles files = new HostFiles(root);
    List<Device> devices =
        m.devices().stream()
            .map(
                d -> {
                  if (d.kind() != DeviceKind.GPU
                      || d.address() == null
                      || !d.id().equals(d.address().toString())) {
                    return d;
                  }
                  Info info = read(files, d.address());
                  if (info == null || info.uuid() == null || m.device(info.uuid()).isPresent()) {
                    return d;
                  }
                  notes.add(
                      "GPU " + d.address() + ": UUID " + info.uuid() + " from /proc/driver/nvidia");
                  return d.withId(info.uuid());
                })
            .toList();
    return new Machine(m.nodeName(), m.source(), m.pcie(), devices);
  }
}
