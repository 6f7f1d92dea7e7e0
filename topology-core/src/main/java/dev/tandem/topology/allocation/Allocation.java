package dev.tandem.topology.allocation;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Locality;
import java.util.List;

/**
 * A chosen set of devices.
 *
 * @param gpus chosen GPUs, in canonical order
 * @param hcas chosen HCAs, in canonical order; an HCA appears once per shared slot taken
 * @param worst the worst locality between a chosen device and its nearest chosen partner of the
 *     other kind ({@link Locality#X} when only one kind was requested and one device chosen; the
 *     spread of the chosen devices when only one kind was requested)
 * @param score 0..10 for kube-scheduler's prioritize ({@link PlacementScore}): 5..10 when the
 *     choice meets the pod's alignment, higher the fewer devices it leaves free on the node; 0..4
 *     by locality when it does not
 */
public record Allocation(List<Device> gpus, List<Device> hcas, Locality worst, int score)
    implements AllocationResult {

  public Allocation {
    gpus = List.copyOf(gpus);
    hcas = List.copyOf(hcas);
  }

  public List<String> gpuIds() {
    return gpus.stream().map(Device::id).toList();
  }

  public List<String> hcaIds() {
    return hcas.stream().map(Device::id).toList();
  }
}
