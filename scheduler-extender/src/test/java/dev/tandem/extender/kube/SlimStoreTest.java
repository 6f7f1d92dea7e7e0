package dev.tandem.extender.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.fixtures.TestMachines;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SlimStoreTest {

  private static Pod pod(String version) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("ml")
        .withName("trainer")
        .withUid("uid-1")
        .withResourceVersion(version)
        .addToAnnotations("tandem.dev/plan", "{}")
        .endMetadata()
        .withNewSpec()
        .withNodeName("gpu-1")
        .withPriority(7)
        .addNewContainer()
        .withName("main")
        .endContainer()
        .endSpec()
        .build();
  }

  @Test
  @DisplayName("a pod is kept as its key, version, UID, node and priority, and nothing else")
  void podKeepsWhatPreemptionReads() {
    SlimStore<Pod> store = SlimStore.pods();
    assertEquals("ml/trainer", store.getKey(pod("1")));
    assertNull(store.put("ml/trainer", pod("1")));
    Pod kept = store.get("ml/trainer");
    assertEquals("trainer", kept.getMetadata().getName());
    assertEquals("ml", kept.getMetadata().getNamespace());
    assertEquals("uid-1", kept.getMetadata().getUid());
    assertEquals("1", kept.getMetadata().getResourceVersion());
    assertEquals("gpu-1", kept.getSpec().getNodeName());
    assertEquals(7, kept.getSpec().getPriority());
    assertTrue(kept.getSpec().getContainers().isEmpty());
    assertTrue(kept.getMetadata().getAnnotations().isEmpty());
    assertFalse(store.isFullState());
  }

  @Test
  @DisplayName("put returns the previous version, so the informer tells a change from a resync")
  void putReturnsPrevious() {
    SlimStore<Pod> store = SlimStore.pods();
    store.put("ml/trainer", pod("1"));
    Pod old = store.put("ml/trainer", pod("2"));
    assertEquals("1", old.getMetadata().getResourceVersion());
    assertTrue(Informers.changed(old, pod("2")));
    Pod resynced = store.get("ml/trainer");
    assertFalse(Informers.changed(resynced, resynced));
    assertFalse(Informers.changed(store.get("ml/trainer"), store.get("ml/trainer")));
    assertEquals(List.of("ml/trainer"), store.keySet().toList());
    assertEquals("2", store.remove("ml/trainer").getMetadata().getResourceVersion());
    assertEquals(0, store.size());
  }

  @Test
  @DisplayName("a NodeTopology is kept as its name and version: no tree stays in the cache")
  void topologyKeepsNoTree() {
    NodeTopology nt = NodeTopologyMapper.toResource(TestMachines.twoSwitchesAndLoneHca("gpu-1"));
    nt.getMetadata().setResourceVersion("5");
    SlimStore<NodeTopology> store = SlimStore.topologies();
    store.put(store.getKey(nt), nt);
    NodeTopology kept = store.values().findFirst().orElseThrow();
    assertEquals("gpu-1", kept.getMetadata().getName());
    assertEquals("5", kept.getMetadata().getResourceVersion());
    assertNull(kept.getSpec());
  }
}
