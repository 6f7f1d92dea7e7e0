package dev.tandem.discovery.live;

import dev.tandem.discovery.DataDirectTies;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.NumaOnlyPairing;
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
 * sysfs filled in), the sysfs tree when libhwloc is missing or finds no GPU or HCA, or when libmlx5
 * ties an mlx5 device to a Data Direct function (sysfs places it there), then libibverbs for port
 * states. A missing library is a note, never an error.
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
    return ibverbs.enrich(chosen(hw, ibverbs.dataDirect(notes), notes));
  }

  /**
   * hwloc's discovery (completed) when it found devices and libmlx5 ties no NIC to a Data Direct
   * function; else the sysfs tree, handed the ties: a tie is placed in one place whichever library
   * found it, {@link SysfsReader} (its {@code DataDirectClaims}), as on a sysfs-only node.
   *
   * @param hw hwloc's discovery, or null when libhwloc failed
   */
  Discovery chosen(Discovery hw, DataDirectTies ties, List<String> notes) {
    boolean hwlocFound = hw != null && !hw.machine().devices().isEmpty();
    if (hwlocFound && ties.byIbDevice().isEmpty()) {
      return completed(hw, notes);
    }
    if (hwlocFound) {
      notes.add(
          "hwloc's tree does not say which NIC a Data Direct function serves; reading sysfs under "
              + sysfsRoot
              + " to place the NICs libmlx5 ties to one");
    } else if (hw != null) {
      notes.add("hwloc found no GPU or HCA; reading sysfs under " + sysfsRoot);
    }
    return SysfsReader.read(sysfsRoot, nodeName, notes, ties);
  }

  /** What hwloc leaves out without vendor plugins: GPU UUIDs, HCA link layer, rate and uverbs. */
  private Discovery completed(Discovery hw, List<String> notes) {
    Machine m = NvidiaProc.withUuids(hw.machine(), sysfsRoot, notes);
    NumaOnlyPairing.note(m, "hwloc").ifPresent(notes::add);
    return new Discovery(
        SysfsReader.withHcaDetails(m, sysfsRoot, notes), "hwloc", notes, hw.warnings());
  }
}
