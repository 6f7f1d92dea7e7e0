/**
 * Discovers a node's GPUs, HCAs and PCIe/NUMA tree into the core model.
 *
 * <p>The port is {@link TopologySource}; {@link TopologySources} is the factory that picks its
 * adapter from {@link DiscoveryOptions}:
 *
 * <ul>
 *   <li>{@code HwlocXmlSource}: an hwloc XML file through libhwloc ({@code Hwloc}, {@code
 *       HwlocXmlVersion}, {@code HwlocXmlReader});
 *   <li>{@code NcclTopoSource}: an NCCL topology file ({@code NcclTopoReader}), named on its VM
 *       from sysfs and procfs ({@code KernelNames}, {@code NvidiaProc});
 *   <li>{@code SysfsSource}: a sysfs/procfs tree ({@code SysfsReader}, {@code HostFiles}, {@code
 *       NvidiaProc}); one reader of a PCI function's RDMA side serves both ({@code RdmaFunction});
 *   <li>{@code LiveSource}: this machine, libhwloc then sysfs, then libibverbs ({@code Ibverbs})
 *       for port states.
 * </ul>
 *
 * <p>Beside the sources, {@link Nvml} is the one binding of NVIDIA's libnvidia-ml: its loading
 * rule, its errors ({@link NvmlException}) and its init/shutdown pairing ({@link NvmlSession}). The
 * agent reads the MIG devices of this machine's GPUs through it, to map the kubelet's MIG ids to
 * their GPUs; the device plugin's GPU health probe asks it for GPUs by UUID.
 *
 * <p>The readers are pure functions from text or files to a {@link Discovery}; the only state is
 * per source: its note memory ({@code DiscoveryLog}) and its native library handles, loaded on
 * first use.
 */
package dev.tandem.discovery;
