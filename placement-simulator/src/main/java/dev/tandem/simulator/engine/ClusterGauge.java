package dev.tandem.simulator.engine;

import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;

/** Reads the cluster's idle devices and free aligned pairs, for the time series. */
final class ClusterGauge {

  private ClusterGauge() {}

  static int idle(ClusterState state, DeviceKind kind) {
    int sum = 0;
    for (NodeState n : state.nodes()) {
      sum += n.free().freeUnits(kind);
    }
    return sum;
  }

  /** Sum over nodes and switch (PXB) groups of min(free GPUs, free HCAs). */
  static int alignedPairsFree(ClusterState state) {
    int sum = 0;
    for (NodeState n : state.nodes()) {
      sum += alignedPairsFree(n.free());
    }
    return sum;
  }

  static int alignedPairsFree(Availability free) {
    LocalityIndex index = free.index();
    int groups = index.groupCount(Locality.PXB);
    int[] gpus = new int[groups];
    int[] hcas = new int[groups];
    for (int d = 0; d < index.devices().size(); d++) {
      int g = index.group(Locality.PXB, d);
      if (index.devices().get(d).kind() == DeviceKind.GPU) {
        gpus[g] += free.free(d);
      } else {
        hcas[g] += free.free(d);
      }
    }
    int sum = 0;
    for (int g = 0; g < groups; g++) {
      sum += Math.min(gpus[g], hcas[g]);
    }
    return sum;
  }
}
