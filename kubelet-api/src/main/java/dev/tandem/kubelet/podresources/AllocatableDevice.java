package dev.tandem.kubelet.podresources;

import java.util.List;

/**
 * A healthy device the kubelet can hand out ({@code GetAllocatableResources}).
 *
 * @param resource the resource name, e.g. {@code nvidia.com/gpu}
 * @param id the device id
 * @param numaNodes its NUMA nodes; empty when the plugin reports no topology
 */
public record AllocatableDevice(String resource, String id, List<Integer> numaNodes) {

  public AllocatableDevice {
    numaNodes = List.copyOf(numaNodes);
  }
}
