package dev.tandem.deviceplugin.pods;

import dev.tandem.api.Annotations;
import dev.tandem.api.ResourceNames;
import dev.tandem.api.plan.PlanCodec;
import dev.tandem.api.pod.PodContainersMapper;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import dev.tandem.topology.request.ContainerDemand;
import dev.tandem.topology.request.PodContainers;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pending pods of a node with a plan, listed from the API server ({@code spec.nodeName} and {@code
 * status.phase=Pending} field selectors) on a worker thread, each pod's containers read by
 * tandem-api's one reading ({@code PodContainersMapper}). A pod whose plan annotation does not
 * parse, or whose quantities are not counts of devices, is skipped with a warning naming what is
 * wrong.
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
        PodContainers containers = PodContainersMapper.of(pod);
        out.add(
            new PlannedPod(
                pod.getMetadata().getNamespace(),
                pod.getMetadata().getName(),
                PlanCodec.decode(text),
                counts(containers, resource),
                counts(containers, gpuResource),
                containers.admissionOrder().stream().map(ContainerDemand::name).toList(),
                containers.init().stream()
                    .filter(c -> !c.sidecar())
                    .map(ContainerDemand::name)
                    .collect(Collectors.toSet())));
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

  /** Per container that names {@code resource}, its count of devices. */
  private static Map<String, Integer> counts(PodContainers containers, String resource) {
    Map<String, Integer> out = new HashMap<>();
    for (ContainerDemand c : containers.admissionOrder()) {
      if (c.names(resource)) {
        out.put(c.name(), Math.toIntExact(c.units(resource)));
      }
    }
    return out;
  }
}
