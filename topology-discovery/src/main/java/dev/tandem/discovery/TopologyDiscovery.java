package dev.tandem.discovery;

import dev.tandem.topology.model.Machine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discovers a node's GPUs, HCAs and PCIe/NUMA tree: the one implementation the agent and the device
 * plugin share.
 *
 * <p>Source order: a named file wins ({@code --hwloc-xml} through libhwloc, {@code --nccl-topo});
 * otherwise this machine through libhwloc, then the sysfs tree (when hwloc is missing or finds no
 * GPU or HCA), then libibverbs for port states. Every step leaves a note in {@link
 * Discovery#notes()}. Calls block (file I/O, JNA): run them on a worker thread.
 */
public final class TopologyDiscovery {

  private static final Logger LOG = LoggerFactory.getLogger(TopologyDiscovery.class);
  private static final Set<String> LOGGED_NOTES = ConcurrentHashMap.newKeySet();

  private TopologyDiscovery() {}

  /**
   * Discovers a topology as the options say.
   *
   * @throws DiscoveryException when a named file is missing, unreadable or invalid, or libhwloc is
   *     needed for a named file and absent or of an unsupported version
   */
  public static Discovery discover(DiscoveryOptions options) {
    Discovery d;
    if (options.hwlocXml() != null) {
      d = fromHwlocFile(options.hwlocXml(), options.nodeName());
    } else if (options.ncclTopo() != null) {
      d =
          NcclTopoReader.read(
              readFile(options.ncclTopo(), "NCCL topology file"),
              options.nodeName(),
              options.ncclTopo().toString());
    } else if (options.useLibraries()) {
      d = live(options);
    } else {
      d = SysfsReader.read(options.sysfsRoot(), options.nodeName(), List.of());
    }
    return finish(d);
  }

  /**
   * Logs the notes, each at INFO (warnings at WARN) the first time this process sees it and at
   * DEBUG when a periodic rediscovery repeats it; a machine without GPUs or HCAs becomes the empty
   * topology.
   */
  private static Discovery finish(Discovery d) {
    for (String n : d.notes()) {
      if (!LOGGED_NOTES.add(n)) {
        LOG.debug("{}", n);
      } else if (d.warnings().contains(n)) {
        LOG.warn("{}", n);
      } else {
        LOG.info("{}", n);
      }
    }
    if (d.machine().devices().isEmpty() && !d.machine().pcie().isEmpty()) {
      return new Discovery(
          Machine.empty(d.machine().nodeName(), d.machine().source()),
          d.source(),
          d.notes(),
          d.warnings());
    }
    return d;
  }

  static Discovery fromHwlocFile(Path file, String nodeName) {
    byte[] bytes = readBytes(file, "hwloc XML file");
    HwlocXmlVersion.check(bytes, file.toString());
    return HwlocXmlReader.read(Hwloc.exportFile(file), nodeName, "hwloc-xml", file.toString());
  }

  private static Discovery live(DiscoveryOptions options) {
    List<String> notes = new ArrayList<>();
    Discovery hw = null;
    try {
      hw =
          HwlocXmlReader.read(
              Hwloc.exportThisMachine(), options.nodeName(), "hwloc", "this machine");
      notes.addAll(hw.notes());
    } catch (DiscoveryException e) {
      notes.add("hwloc: skipped: " + e.getMessage());
    }
    Discovery chosen;
    if (hw != null && !hw.machine().devices().isEmpty()) {
      Machine m = NvidiaProc.withUuids(hw.machine(), options.sysfsRoot(), notes);
      chosen =
          new Discovery(
              SysfsReader.withHcaDetails(m, options.sysfsRoot(), notes),
              "hwloc",
              notes,
              hw.warnings());
    } else {
      if (hw != null) {
        notes.add("hwloc found no GPU or HCA; reading sysfs under " + options.sysfsRoot());
      }
      chosen = SysfsReader.read(options.sysfsRoot(), options.nodeName(), notes);
    }
    return Ibverbs.enrich(chosen);
  }

  static String readFile(Path file, String what) {
    return new String(readBytes(file, what), StandardCharsets.UTF_8);
  }

  static byte[] readBytes(Path file, String what) {
    if (!Files.exists(file)) {
      throw new DiscoveryException(what + " " + file + " does not exist");
    }
    if (Files.isDirectory(file)) {
      throw new DiscoveryException(what + " " + file + " is a directory, not a file");
    }
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new DiscoveryException(what + " " + file + " cannot be read: " + e.getMessage(), e);
    }
  }

  /** Used by sources that rebuild a machine. */
  static Machine withSource(Machine m, String source) {
    return new Machine(m.nodeName(), source, m.pcie(), m.devices());
  }
}
