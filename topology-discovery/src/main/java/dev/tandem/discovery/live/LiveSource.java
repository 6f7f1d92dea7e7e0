package dev.tandem.discovery.live;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.hwloc.Hwloc;
import dev.tandem.discovery.hwloc.HwlocXmlReader;
import dev.tandem.discovery.ibverbs.Ibverbs;
import dev.tandem.discovery.sysfs.NvidiaProc;
import dev.tandem.discovery.sysfs.SysfsReader;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * This machine: libhwloc first (GPU UUIDs from {@code /proc/driver/nvidia} and HCA details from
 * sysfs filled in), the sysfs tree when libhwloc is missing or finds no GPU or HCA, then libibverbs
 * for port states. A missing library is a note, never an error.
 */
public final class LiveSource implements TopologySource {

  private final String nodeName;
  private final Path sysfsRoot;
  private final Hwloc hwloc;
  private final Ibverbs ibverbs;

  public LiveSource(String nodeName, Path sysfsRoot, Hwloc hwloc, Ibverbs ibverbs) {
    this.nodeName = nodeName;
    this.sysfsRoot = sysfsRoot;
    this.hwloc = hwloc;
    this.ibverbs = ibverbs;
  }

  @Override
  public Discovery discover() {
    List<String> notes = new ArrayList<>();
    Discovery hw = null;
    try {
      hw = HwlocXmlReader.read(hwloc.exportThisMachine(), nodeName, "hwloc", "this machine");
      notes.addAll(hw.notes());
    } catch (DiscoveryException e) {
      notes.add("hwloc: skipped: " + e.getMessage());
    }
    if (hw != null && !hw.machine().devices().isEmpty()) {
      return ibverbs.enrich(completed(hw, notes));
    }
    if (hw != null) {
      notes.add("hwloc found no GPU or HCA; reading sysfs under " + sysfsRoot);
    }
    return ibverbs.enrich(SysfsReader.read(sysfsRoot, nodeName, notes));
  }

  /** What hwloc leaves out without vendor plugins: GPU UUIDs, HCA link layer, rate and uverbs. */
  private Discovery completed(Discovery hw, List<String> notes) {
    Machine m = NvidiaProc.withUuids(hw.machine(), sysfsRoot, notes);
    return new Discovery(
        SysfsReader.withHcaDetails(m, sysfsRoot, notes), "hwloc", notes, hw.warnings());
  }
}
