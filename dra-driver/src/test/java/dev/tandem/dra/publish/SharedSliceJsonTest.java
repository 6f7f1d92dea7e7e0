package dev.tandem.dra.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.dra.slices.HcaShape;
import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.fixtures.TestMachines;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "shared HCAs in fabric8's model: the JSON sent, and no churn over canonical quantities")
class SharedSliceJsonTest {

  static NodePool pool(int shares) {
    return PoolBuilder.build(
        TestMachines.twoSwitchesAndLoneHca("n1"),
        new PoolSpec(PoolSpec.DEFAULT_DRIVER, true, HcaShape.SHARED, shares));
  }

  static JsonNode device(ResourceSliceSpec spec, String name) throws Exception {
    JsonNode json = new ObjectMapper().readTree(new KubernetesSerialization().asJson(spec));
    for (JsonNode d : json.get("devices")) {
      if (d.get("name").asText().equals(name)) {
        return d;
      }
    }
    throw new AssertionError("no device " + name + " in " + json);
  }

  @Test
  @DisplayName(
      "an HCA: allowMultipleAllocations true, capacity tandem.dev/shares {value, requestPolicy"
          + " {default: 1}}; a GPU: neither")
  void json() throws Exception {
    ResourceSliceSpec spec = SliceContent.spec(pool(1000), 0, 1);
    JsonNode hca = device(spec, "mlx5-0");
    assertTrue(hca.get("allowMultipleAllocations").asBoolean(), hca.toString());
    JsonNode shares = hca.get("capacity").get("tandem.dev/shares");
    assertEquals("1000", shares.get("value").asText(), hca.toString());
    assertEquals("1", shares.get("requestPolicy").get("default").asText());
    assertEquals(1, shares.get("requestPolicy").size(), "only a default: " + shares);
    assertEquals(2, shares.size(), shares.toString());
    JsonNode gpu = device(spec, "gpu-a0");
    assertFalse(gpu.has("allowMultipleAllocations"), gpu.toString());
    assertFalse(gpu.has("capacity"), gpu.toString());
  }

  @Test
  @DisplayName(
      "the API server's 1k for 1000 is the same slice; other shares, or sharing dropped, are not")
  void comparison() {
    ResourceSliceSpec wanted = SliceContent.spec(pool(1000), 0, 1);
    ResourceSliceSpec held = SliceContent.spec(pool(1000), 0, 7);
    held.getDevices().stream()
        .filter(d -> d.getCapacity() != null)
        .forEach(d -> d.getCapacity().values().forEach(c -> c.setValue(new Quantity("1k"))));
    assertTrue(SliceContent.same(held, wanted, Set.of()));
    assertFalse(SliceContent.same(SliceContent.spec(pool(999), 0, 1), wanted, Set.of()));
    ResourceSliceSpec unshared =
        SliceContent.spec(
            PoolBuilder.build(TestMachines.twoSwitchesAndLoneHca("n1"), PoolSpec.joint()), 0, 1);
    assertFalse(SliceContent.same(unshared, wanted, Set.of()));
  }
}
