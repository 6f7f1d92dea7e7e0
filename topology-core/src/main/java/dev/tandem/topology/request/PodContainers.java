package dev.tandem.topology.request;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A pod's containers with their extended-resource demands, as its spec lists them: init containers
 * (sidecars among them) and app containers, each in spec order. What every component reads from a
 * pod before it counts devices ({@link PodDemand}) or splits them ({@link ContainerSplit}).
 *
 * @param init the init containers, in spec order
 * @param app the app containers, in spec order
 */
public record PodContainers(List<ContainerDemand> init, List<ContainerDemand> app) {

  /** A pod without containers. */
  public static final PodContainers NONE = new PodContainers(List.of(), List.of());

  public PodContainers {
    init = List.copyOf(init);
    app = List.copyOf(app);
  }

  /** The pod's effective need of {@code resource}, as kube-scheduler counts it. */
  public long effective(String resource) {
    return PodDemand.effective(resource, init, app);
  }

  /** Whether any container names {@code resource}, even with quantity 0. */
  public boolean names(String resource) {
    return PodDemand.names(resource, init, app);
  }

  /** Every container in the order the kubelet admits them: init containers, then app ones. */
  public List<ContainerDemand> admissionOrder() {
    List<ContainerDemand> out = new ArrayList<>(init.size() + app.size());
    out.addAll(init);
    out.addAll(app);
    return out;
  }

  /** The container of that name, init or app. */
  public Optional<ContainerDemand> container(String name) {
    return admissionOrder().stream().filter(c -> c.name().equals(name)).findFirst();
  }
}
