package dev.tandem.dra.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dra.slices.HcaShape;
import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.fixtures.TestMachines;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("PoolSlices: the slices of a first publication, for tools that create them")
class PoolSlicesTest {

  @Test
  @DisplayName(
      "each slice named as the publisher names it, on the node, pool generation 1, the spec and"
          + " fingerprint the publisher writes, no owner")
  void asPublished() {
    NodePool pool =
        PoolBuilder.build(
            TestMachines.twoSwitchesAndLoneHca("n1"),
            new PoolSpec(PoolSpec.DEFAULT_DRIVER, true, HcaShape.HCA, 1000));
    ResourceSliceList list = PoolSlices.of(pool);
    assertEquals(pool.slices().size(), list.getItems().size());
    for (int i = 0; i < list.getItems().size(); i++) {
      ResourceSlice s = list.getItems().get(i);
      assertEquals(pool.sliceName(i), s.getMetadata().getName());
      assertEquals(SliceContent.spec(pool, i, 1), s.getSpec());
      assertEquals(
          SliceContent.fingerprint(s.getSpec()),
          s.getMetadata().getAnnotations().get(SlicePublisher.FINGERPRINT));
      assertEquals("n1", s.getSpec().getNodeName());
      assertEquals(1L, s.getSpec().getPool().getGeneration());
      assertTrue(s.getMetadata().getOwnerReferences().isEmpty(), "no owner: " + s.getMetadata());
    }
  }
}
