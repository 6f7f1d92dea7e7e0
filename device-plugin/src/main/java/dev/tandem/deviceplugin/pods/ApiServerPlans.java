package dev.tandem.deviceplugin.pods;

import dev.tandem.api.Annotations;
import dev.tandem.api.ResourceNames;
import dev.tandem.api.plan.PlanCodec;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pending pods of a node with a plan, listed from the API server ({@code spec.nodeName} and {@code
 * status.phase=Pending} field selectors) on a worker thread. A pod whose plan annotation does not
 * parse is skipped with a warning.
 */
public final class ApiServerPlans implements PendingPlans {

  private static final Logger LOG = LoggerFactory.getLogger(ApiServerPlans.class);

  private final Vertx vertx;
  private final KubernetesClient client;
  private final String resource;
  private final String gpuResource;

  public ApiServerPlans(Vertx vertx, KubernetesClient client, String resource) {
    this(vertx, client, resource, ResourceNames.GPU);
  }

  /** {@code gpuResource}: the GPU resource whose limits are read too (joint mode). */
  public ApiServerPlans(Vertx vertx, KubernetesClient client, String resource, String gpuResource) {
    this.vertx = vertx;
    this.client = client;
    this.resource = resource;
    this.gpuResource = gpuResource;
  }

  @Override
  public Future<List<PlannedPod>> pending(String nodeName) {
    return vertx
        .executeBlocking(
            () ->
                client
                    .pods()
                    .inAnyNamespace()
                    .withField("spec.nodeName", nodeName)
                    .withField("status.phase", "Pending")
                    .list()
                    .getItems(),
            false)
        .map(this::planned);
  }

  List<PlannedPod> planned(List<Pod> pods) {
    List<PlannedPod> out = new ArrayList<>();
    for (Pod pod : pods) {
      Map<String, String> ann = pod.getMetadata().getAnnotations();
      String text = ann == null ? null : ann.get(Annotations.PLAN);
      if (text == null) {
        continue;
      }
      try {
        out.add(
            new PlannedPod(
                pod.getMetadata().getNamespace(),
                pod.getMetadata().getName(),
                PlanCodec.decode(text),
                limits(pod, resource),
                limits(pod, gpuResource),
                order(pod),
                endingInit(pod)));
      } catch (IllegalArgumentException e) {
        LOG.warn(
            "pod {}/{}: {}",
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getName(),
            e.getMessage());
      }
    }
    return out;
  }

  /** Init containers then app containers, as the kubelet admits them. */
  private static List<String> order(Pod pod) {
    List<String> out = new ArrayList<>();
    initContainers(pod).forEach(c -> out.add(c.getName()));
    pod.getSpec().getContainers().forEach(c -> out.add(c.getName()));
    return out;
  }

  /** Init containers without {@code restartPolicy: Always} (sidecars have it). */
  private static Set<String> endingInit(Pod pod) {
    Set<String> out = new HashSet<>();
    for (Container c : initContainers(pod)) {
      if (!"Always".equals(c.getRestartPolicy())) {
        out.add(c.getName());
      }
    }
    return out;
  }

  private static List<Container> initContainers(Pod pod) {
    List<Container> init = pod.getSpec().getInitContainers();
    return init == null ? List.of() : init;
  }

  private static Map<String, Integer> limits(Pod pod, String resource) {
    Map<String, Integer> out = new HashMap<>();
    List<Container> all = new ArrayList<>(pod.getSpec().getContainers());
    if (pod.getSpec().getInitContainers() != null) {
      all.addAll(pod.getSpec().getInitContainers());
    }
    for (Container c : all) {
      if (c.getResources() != null && c.getResources().getLimits() != null) {
        Quantity q = c.getResources().getLimits().get(resource);
        if (q != null) {
          out.put(c.getName(), q.getNumericalAmount().intValue());
        }
      }
    }
    return out;
  }
}
