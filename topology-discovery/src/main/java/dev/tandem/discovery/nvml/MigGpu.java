package dev.tandem.discovery.nvml;

import dev.tandem.topology.model.PciAddress;
import java.util.List;

/**
 * A GPU with MIG enabled and its MIG devices, as NVML reports them.
 *
 * @param uuid the GPU's UUID ({@code GPU-…})
 * @param address its PCI address; null when NVML's bus id cannot be read
 * @param migDevices the UUIDs of its MIG devices ({@code MIG-…}), in NVML's index order
 */
public record MigGpu(String uuid, PciAddress address, List<String> migDevices) {

  public MigGpu {
    migDevices = List.copyOf(migDevices);
  }
}
