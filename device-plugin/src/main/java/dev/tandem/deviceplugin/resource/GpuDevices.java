package dev.tandem.deviceplugin.resource;

import dev.tandem.deviceplugin.allocate.AllocateResponder;
import dev.tandem.deviceplugin.allocate.GpuAnswer;
import dev.tandem.deviceplugin.gpu.DriverProcfs;
import dev.tandem.deviceplugin.gpu.GpuHealthProbe;
import dev.tandem.deviceplugin.gpu.NvmlProbe;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node's full GPUs as {@code nvidia.com/gpu} devices (id = the GPU's UUID, as NVIDIA's plugin
 * names them). A GPU is healthy when every probe that can tell says so (procfs/sysfs, and NVML when
 * loaded); a GPU no probe can tell about keeps the health discovery saw.
 */
public final class GpuDevices implements ResourceDevices {

  private final Machine machine;
  private final String resourceName;
  private final List<GpuHealthProbe> probes;
  private final boolean cdi;
  private final String nvmlNote;

  /**
   * @param cdi whether Allocate also names each GPU as a CDI device
   * @param nvmlNote why NVML is or is not among the probes
   */
  public GpuDevices(
      Machine machine,
      String resourceName,
      List<GpuHealthProbe> probes,
      boolean cdi,
      String nvmlNote) {
    this.machine = machine;
    this.resourceName = resourceName;
    this.probes = List.copyOf(probes);
    this.cdi = cdi;
    this.nvmlNote = nvmlNote;
  }

  /**
   * Probes of this host: the driver's procfs/sysfs under {@code root}, and NVML from {@code
   * nvmlLibrary} when it loads and initialises (held until {@link #close}).
   */
  public static GpuDevices onHost(
      Machine machine, String resourceName, Path root, boolean cdi, String nvmlLibrary) {
    List<GpuHealthProbe> probes = new ArrayList<>();
    probes.add(new DriverProcfs(root));
    NvmlProbe.Opened nvml = NvmlProbe.open(nvmlLibrary);
    nvml.probe().ifPresent(probes::add);
    return new GpuDevices(machine, resourceName, probes, cdi, nvml.note());
  }

  /** Releases what the probes hold (NVML's session, shut down once). */
  public void close() {
    probes.forEach(GpuHealthProbe::close);
  }

  /** Why NVML is or is not used, e.g. the library is missing. */
  public String nvmlNote() {
    return nvmlNote;
  }

  @Override
  public String resourceName() {
    return resourceName;
  }

  @Override
  public String noun() {
    return "GPUs";
  }

  @Override
  public List<OfferedDevice> offered() {
    return machine.gpus().stream()
        .map(g -> new OfferedDevice(g.id(), g.numaNode(), g.id()))
        .toList();
  }

  @Override
  public Map<String, Boolean> discoveredHealth() {
    Map<String, Boolean> out = new HashMap<>();
    machine.gpus().forEach(g -> out.put(g.id(), g.healthy()));
    return out;
  }

  @Override
  public Map<String, Boolean> readHealth() {
    Map<String, Boolean> out = new HashMap<>();
    for (Device g : machine.gpus()) {
      Boolean verdict = null;
      for (GpuHealthProbe p : probes) {
        Optional<Boolean> h = p.healthy(g);
        if (h.isPresent()) {
          verdict = (verdict == null || verdict) && h.get();
        }
      }
      out.put(g.id(), verdict != null ? verdict : g.healthy());
    }
    return out;
  }

  @Override
  public String healthChange(String id, boolean healthy) {
    return "GPU "
        + id
        + " on node "
        + machine.nodeName()
        + " is now "
        + (healthy ? "Healthy" : "Unhealthy (the NVIDIA driver does not show it)");
  }

  @Override
  public AllocateResponder allocateResponder() {
    return GpuAnswer.responder(machine, cdi);
  }
}
