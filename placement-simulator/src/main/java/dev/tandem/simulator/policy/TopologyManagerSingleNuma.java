package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.Decision;
import dev.tandem.simulator.engine.Placement;
import dev.tandem.simulator.engine.PlacementPolicy;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.model.Device;
import java.util.Random;
import java.util.TreeSet;

/**
 * The kubelet Topology Manager with {@code single-numa-node}: the scheduler places by counts and
 * does not know NUMA ({@link CountScheduler}); at admission the kubelet needs one NUMA node that
 * holds all the pod's GPUs and HCAs (the device plugins' {@code TopologyInfo}), takes the lowest
 * such node (the narrowest merged hint, lowest mask first: pkg/kubelet/cm/topologymanager), and
 * else fails the pod with TopologyAffinityError. Inside the NUMA node the devices are what the
 * stock plugins give ({@link StockPlugins}): alignment by NUMA only, never by switch.
 */
public final class TopologyManagerSingleNuma implements PlacementPolicy {

  @Override
  public String name() {
    return "topology-manager";
  }

  @Override
  public String description() {
    return "kubelet Topology Manager single-numa-node: placed by counts, admitted only within one"
        + " NUMA node (else TopologyAffinityError)";
  }

  @Override
  public Decision place(PodSpec pod, ClusterState state, Random random) {
    int node = CountScheduler.pick(pod, state, random);
    if (node < 0) {
      return new Decision.Wait(CountScheduler.NO_NODE);
    }
    Availability free = state.node(node).free();
    for (int numa : numaNodes(free)) {
      Placement p = StockPlugins.devices(node, free, pod, d -> numa(d) == numa, random);
      if (p != null) {
        return new Decision.Placed(p);
      }
    }
    return new Decision.Rejected("TopologyAffinityError: no single NUMA node holds the request");
  }

  private static TreeSet<Integer> numaNodes(Availability free) {
    TreeSet<Integer> out = new TreeSet<>();
    free.index().devices().forEach(d -> out.add(numa(d)));
    return out;
  }

  /** A device without NUMA affinity (-1) counts as NUMA node 0, as the kubelet treats it. */
  private static int numa(Device d) {
    return Math.max(d.numaNode(), 0);
  }
}
