package dev.tandem.topology.request;

import java.util.List;

/**
 * A pod's effective need of one resource, computed as kube-scheduler computes it: the larger of
 * (app containers plus sidecars, which run alongside them) and the peak of the init phase, where
 * each init container runs next to the sidecars started before it.
 */
public final class PodDemand {

  private PodDemand() {}

  public static long effective(
      String resource, List<ContainerDemand> initContainers, List<ContainerDemand> containers) {
    long app = 0;
    for (ContainerDemand c : containers) {
      app += c.units(resource);
    }
    long sidecars = 0;
    long initPeak = 0;
    for (ContainerDemand c : initContainers) {
      long atStart;
      if (c.sidecar()) {
        sidecars += c.units(resource);
        atStart = sidecars;
      } else {
        atStart = sidecars + c.units(resource);
      }
      initPeak = Math.max(initPeak, atStart);
    }
    return Math.max(app + sidecars, initPeak);
  }

  /** Whether any container or init container names the resource (kube-scheduler's IsInterested). */
  public static boolean names(
      String resource, List<ContainerDemand> initContainers, List<ContainerDemand> containers) {
    return initContainers.stream().anyMatch(c -> c.names(resource))
        || containers.stream().anyMatch(c -> c.names(resource));
  }
}
