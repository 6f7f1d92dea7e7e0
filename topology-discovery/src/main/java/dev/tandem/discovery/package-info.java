/**
 * Discovers a node's GPUs, HCAs and PCIe/NUMA tree into the core model: the port and its factory,
 * what other modules use.
 *
 * <p>The port is {@link TopologySource}, giving a {@link Discovery} or a {@link
 * DiscoveryException}; {@link TopologySources} is the factory that picks its adapter from {@link
 * DiscoveryOptions}, and the only class of this package that knows the adapters:
 *
 * <ul>
 *   <li>{@code hwloc.HwlocXmlSource}: an hwloc XML file through libhwloc;
 *   <li>{@code nccl.NcclTopoSource}: an NCCL topology file, named on its VM from sysfs and procfs;
 *   <li>{@code sysfs.SysfsSource}: a sysfs/procfs tree;
 *   <li>{@code live.LiveSource}: this machine, libhwloc then sysfs, then libibverbs for port
 *       states.
 * </ul>
 *
 * <p>Every source is wrapped the same way ({@code LoggedSource}): HCAs without an ibverbs name are
 * marked ({@code DriverlessHcas}) and notes are logged once per source ({@code DiscoveryLog}). The
 * rules every reader shares (hardened XML, device classes, NUMA sets, named files) are in {@code
 * read}. Beside the sources, {@code nvml} is the one binding of NVIDIA's libnvidia-ml, used by the
 * agent and the device plugin.
 *
 * <p>The readers are pure functions from text or files to a {@link Discovery}; the only state is
 * per source: its note memory and its native library handles, loaded on first use.
 */
package dev.tandem.discovery;
