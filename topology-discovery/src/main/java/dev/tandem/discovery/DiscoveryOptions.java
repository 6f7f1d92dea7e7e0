package dev.tandem.discovery;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What to discover and from where: the input of the factory, {@link TopologySources#create}.
 *
 * <p>Exactly one source is used when a file is named: {@code hwlocXml} (loaded through libhwloc),
 * else {@code ncclTopo}. Without a file, the live machine is read: through libhwloc (and libibverbs
 * for port states) when {@code useLibraries} is set, falling back to the sysfs tree under {@code
 * sysfsRoot}; only from {@code sysfsRoot} otherwise. An NCCL topology file describes the VM it is
 * read on: the names the kubelet reports (GPU UUIDs, ibverbs names) come from sysfs and procfs
 * under {@code sysfsRoot}, unless {@code fileAlone} says the file stands for some other machine
 * (the placement simulator, the extender's demo).
 *
 * @param nodeName the Kubernetes node name the topology is published under
 * @param hwlocXml an hwloc XML export to load instead of this machine, or null
 * @param sysfsRoot the directory that host paths ({@code /sys}, {@code /proc}) resolve against;
 *     {@code /} when null
 * @param ncclTopo an NCCL topology file (the vendor's grouping of a cloud VM), or null
 * @param useLibraries read this machine through libhwloc and libibverbs before sysfs
 * @param fileAlone read the NCCL topology file alone, nothing of this node: its devices keep the
 *     file's names (bus ids, {@code <net name>}) and its NICs stay healthy (an hwloc export is
 *     always read alone)
 */
public record DiscoveryOptions(
    String nodeName,
    Path hwlocXml,
    Path sysfsRoot,
    Path ncclTopo,
    boolean useLibraries,
    boolean fileAlone) {

  public static final Path HOST_ROOT = Path.of("/");

  public DiscoveryOptions {
    Objects.requireNonNull(nodeName, "nodeName");
    sysfsRoot = sysfsRoot == null ? HOST_ROOT : sysfsRoot;
    if (hwlocXml != null && ncclTopo != null) {
      throw new IllegalArgumentException(
          "give either an hwloc XML file or an NCCL topology file, not both");
    }
    if (fileAlone && ncclTopo == null) {
      throw new IllegalArgumentException("fileAlone needs an NCCL topology file");
    }
  }

  /** Options that read this node (the agent, the device plugin, {@code dump}). */
  public DiscoveryOptions(
      String nodeName, Path hwlocXml, Path sysfsRoot, Path ncclTopo, boolean useLibraries) {
    this(nodeName, hwlocXml, sysfsRoot, ncclTopo, useLibraries, false);
  }

  /**
   * Whether the source reads this node's sysfs, so that an HCA without an ibverbs name there is one
   * whose RDMA driver is not loaded: the live machine, its sysfs tree, or an NCCL file on its VM.
   */
  public boolean readsNode() {
    return hwlocXml == null && !fileAlone;
  }

  /**
   * The one translation of the node settings every node daemon and command declares (daemon-kit's
   * {@code NodeSettings}, read as plain values): the file named, else this machine through libhwloc
   * and libibverbs falling back to sysfs under {@code sysfsRoot}, or that sysfs alone when {@code
   * sysfsOnly}.
   *
   * @param nodeName the node's name
   * @param hwlocXml an hwloc XML export, or null
   * @param ncclTopo an NCCL topology file on the VM it describes (names from {@code sysfsRoot}), or
   *     null
   * @param sysfsRoot the host root; {@code /} when null
   * @param sysfsOnly read sysfs only, without the libraries
   */
  public static DiscoveryOptions fromNodeSettings(
      String nodeName, Path hwlocXml, Path ncclTopo, Path sysfsRoot, boolean sysfsOnly) {
    return new DiscoveryOptions(
        nodeName,
        hwlocXml,
        sysfsRoot,
        ncclTopo,
        hwlocXml == null && ncclTopo == null && !sysfsOnly);
  }

  /** This machine: libhwloc and libibverbs first, then sysfs under {@code /}. */
  public static DiscoveryOptions live(String nodeName) {
    return new DiscoveryOptions(nodeName, null, HOST_ROOT, null, true);
  }

  /** An hwloc XML export, loaded through libhwloc. */
  public static DiscoveryOptions hwlocXml(String nodeName, Path file) {
    return new DiscoveryOptions(
        nodeName, Objects.requireNonNull(file, "file"), HOST_ROOT, null, false);
  }

  /** A captured sysfs tree ({@code DIR/sys/...}, {@code DIR/proc/...}), without the libraries. */
  public static DiscoveryOptions sysfs(String nodeName, Path root) {
    return new DiscoveryOptions(nodeName, null, Objects.requireNonNull(root, "root"), null, false);
  }

  /**
   * An NCCL topology file alone, as a model of a machine (the simulator, the demo): nothing of this
   * node is read. On the VM it describes, give the host root: {@code new DiscoveryOptions(node,
   * null, root, file, false)}.
   */
  public static DiscoveryOptions ncclTopo(String nodeName, Path file) {
    return new DiscoveryOptions(
        nodeName, null, HOST_ROOT, Objects.requireNonNull(file, "file"), false, true);
  }
}
