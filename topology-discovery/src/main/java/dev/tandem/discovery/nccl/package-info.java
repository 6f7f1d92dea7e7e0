/**
 * The NCCL topology adapter: {@link NcclTopoSource} reads an NCCL topology file ({@code
 * NcclTopoReader}) and, on the VM it describes, names its devices from sysfs and procfs (the sysfs
 * package's {@code KernelNames} and {@code NvidiaProc}).
 */
package dev.tandem.discovery.nccl;
