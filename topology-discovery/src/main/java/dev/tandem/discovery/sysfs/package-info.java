/**
 * The sysfs/procfs adapter: {@link SysfsSource} reads a machine from a sysfs tree ({@link
 * SysfsReader}, through {@code HostFiles}); one reader of a PCI function's RDMA side ({@code
 * RdmaFunction}) serves it and the kernel names of devices read elsewhere ({@link KernelNames}),
 * and {@link NvidiaProc} gives GPU UUIDs from the NVIDIA driver's procfs.
 */
package dev.tandem.discovery.sysfs;
