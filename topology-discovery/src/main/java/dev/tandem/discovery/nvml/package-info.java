/**
 * The one binding of NVIDIA's libnvidia-ml (JNA): its loading rule ({@link Nvml}), its errors
 * ({@link NvmlException}) and its init/shutdown pairing ({@link NvmlSession}). The agent reads the
 * MIG devices of this machine's GPUs through it ({@link MigGpu}), to map the kubelet's MIG ids to
 * their GPUs; the device plugin's GPU health probe asks it for GPUs by UUID.
 */
package dev.tandem.discovery.nvml;
