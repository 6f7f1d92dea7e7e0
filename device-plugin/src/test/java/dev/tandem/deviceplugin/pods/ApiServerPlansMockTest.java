package dev.tandem.deviceplugin.pods;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.api.Annotations;
import dev.tandem.api.plan.GoldenPlan;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@EnableKubernetesMockClient
@ExtendWith(VertxExtension.class)
@DisplayName(
    "pending planned pods from the API server: field selectors, plan annotation, rdma/hca and nvidia.com/gpu limits")
class ApiServerPlansMockTest {

  static KubernetesMockServer server;
  static KubernetesClient client;
  Vertx vertx;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  static Pod pod(String name, String plan, int hcas) {
    return pod(name, plan, String.valueOf(hcas));
  }

  static Pod pod(String name, String plan, String hcas) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace("team")
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withNodeName("n1")
            .addNewContainer()
            .withName("train")
            .withNewResources()
            .withLimits(Map.of("rdma/hca", new Quantity(hcas), "nvidia.com/gpu", new Quantity("2")))
            .endResources()
            .endContainer()
            .addNewInitContainer()
            .withName("setup")
            .endInitContainer()
            .addNewInitContainer()
            .withName("proxy")
            .withRestartPolicy("Always")
            .endInitContainer()
            .endSpec();
    if (plan != null) {
      b.editMetadata().withAnnotations(Map.of(Annotations.PLAN, plan)).endMetadata();
    }
    return b.build();
  }

  @Test
  @DisplayName(
      "asks for pods on this node in phase Pending; keeps planned pods with their limits, skips bad plans")
  void lists() {
    String plan = GoldenPlan.json();
    server
        .expect()
        .get()
        .withPath(
            "/api/v1/pods?fieldSelector="
                + URLEncoder.encode(
                    "spec.nodeName=n1,status.phase=Pending", StandardCharsets.UTF_8))
        .andReturn(
            200,
            new PodListBuilder()
                .withItems(pod("a", plan, 2), pod("b", null, 1), pod("c", "{not json", 1))
                .build())
        .once();
    List<PlannedPod> got = new ApiServerPlans(vertx, client, "rdma/hca").pending("n1").await();
    assertEquals(1, got.size());
    assertEquals("team/a", got.get(0).key());
    assertEquals(Map.of("train", 2), got.get(0).hcaLimits());
    assertEquals(Map.of("train", 2), got.get(0).gpuLimits(), "joint mode reads the GPU limits too");
    assertEquals(
        GoldenPlan.PLAN, got.get(0).plan(), "the plan the extender writes (golden/plan.json)");
    assertEquals(
        List.of("setup", "proxy", "train"), got.get(0).order(), "the kubelet's admission order");
    assertEquals(Set.of("setup"), got.get(0).endingInit(), "a sidecar's devices are never reused");
  }

  @Test
  @DisplayName(
      "limits read as every component reads them: a fraction rounds up as kube-scheduler's does;"
          + " a limit that is no quantity skips the pod")
  void quantities() {
    Pod fraction = pod("fraction", GoldenPlan.json(), "1500m");
    Pod bad = pod("bad", GoldenPlan.json(), "two");
    List<PlannedPod> got =
        new ApiServerPlans(vertx, client, "rdma/hca").planned(List.of(fraction, bad));
    assertEquals(List.of("team/fraction"), got.stream().map(PlannedPod::key).toList());
    assertEquals(Map.of("train", 2), got.get(0).hcaLimits(), "1500m is 2 devices, not 1");
  }
}
