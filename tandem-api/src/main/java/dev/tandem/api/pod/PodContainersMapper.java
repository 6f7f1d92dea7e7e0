package dev.tandem.api.pod;

import dev.tandem.api.ResourceNames;
import dev.tandem.topology.request.ContainerDemand;
import dev.tandem.topology.request.PodContainers;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The one reading of a pod's containers for device counts, shared by the extender (the pod
 * kube-scheduler sends), the device plugin (pending pods) and the agent's audit (pods on its node):
 * each container's {@code requests} and {@code limits} of every extended resource (every resource
 * that is not {@link ResourceNames#isNative native}) as whole units ({@link DeviceQuantity}), and
 * which init containers are sidecars ({@code restartPolicy: Always}, as kube-scheduler and the
 * kubelet tell them). What the pod then needs is topology-core's rule ({@link
 * PodContainers#effective}), where a limit stands in for a missing request. Native resources
 * ({@code cpu}, {@code memory}, …) are not read.
 */
public final class PodContainersMapper {

  private static final String SIDECAR_RESTART_POLICY = "Always";

  private PodContainersMapper() {}

  /**
   * The containers of {@code pod}; none when it has no spec.
   *
   * @throws DeviceCountTooLarge naming the container, the resource and the value, when a quantity
   *     is more devices than any node has
   * @throws IllegalArgumentException naming the container, the resource and the value, when a
   *     quantity is not a count of devices
   */
  public static PodContainers of(Pod pod) {
    if (pod.getSpec() == null) {
      return PodContainers.NONE;
    }
    return of(pod.getSpec().getInitContainers(), pod.getSpec().getContainers());
  }

  /**
   * The containers of a pod spec's {@code initContainers} and {@code containers} (either may be
   * null).
   *
   * @throws DeviceCountTooLarge naming the container, the resource and the value, when a quantity
   *     is more devices than any node has
   * @throws IllegalArgumentException naming the container, the resource and the value, when a
   *     quantity is not a count of devices
   */
  public static PodContainers of(List<Container> initContainers, List<Container> containers) {
    return new PodContainers(demands(initContainers, true), demands(containers, false));
  }

  private static List<ContainerDemand> demands(List<Container> containers, boolean init) {
    if (containers == null) {
      return List.of();
    }
    List<ContainerDemand> out = new ArrayList<>(containers.size());
    for (Container c : containers) {
      ResourceRequirements r = c.getResources();
      out.add(
          new ContainerDemand(
              c.getName(),
              units(c, "requests", r == null ? null : r.getRequests()),
              units(c, "limits", r == null ? null : r.getLimits()),
              init && SIDECAR_RESTART_POLICY.equals(c.getRestartPolicy())));
    }
    return out;
  }

  private static Map<String, Long> units(Container c, String which, Map<String, Quantity> given) {
    if (given == null || given.isEmpty()) {
      return Map.of();
    }
    Map<String, Long> out = new HashMap<>(4);
    for (Map.Entry<String, Quantity> e : given.entrySet()) {
      if (e.getValue() == null || ResourceNames.isNative(e.getKey())) {
        continue;
      }
      try {
        out.put(e.getKey(), DeviceQuantity.units(e.getValue()));
      } catch (DeviceCountTooLarge x) {
        throw new DeviceCountTooLarge(where(c, which, e.getKey()) + x.getMessage());
      } catch (IllegalArgumentException x) {
        throw new IllegalArgumentException(where(c, which, e.getKey()) + x.getMessage(), x);
      }
    }
    return out;
  }

  private static String where(Container c, String which, String resource) {
    return "container " + c.getName() + ": " + which + " of " + resource + ": ";
  }
}
