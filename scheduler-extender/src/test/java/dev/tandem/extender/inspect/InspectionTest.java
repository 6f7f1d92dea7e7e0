package dev.tandem.extender.inspect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.MigEntry;
import dev.tandem.api.identity.DeviceUnits;
import dev.tandem.api.identity.MigLayout;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.state.ReportedAllocation;
import dev.tandem.extender.verbs.NodeEvaluator;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("inspection of one node: the MIG devices the agent published, DRA claims' devices")
class InspectionTest {

  private final ClusterState state =
      ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null).state();
  private final Inspection inspection = new Inspection(state, new NodeEvaluator(1_000));

  @Test
  @DisplayName(
      "a node with MIG devices lists them per GPU, as status.mig; one without, an empty list")
  void migPerGpu() {
    var m = TestMachines.pixNode();
    String gpu = m.gpus().get(0).id();
    List<String> migs = List.of("MIG-1", "MIG-2");
    MigLayout mig = MigLayout.of(List.of(new MigEntry(gpu, migs)));
    DeviceUnits units =
        DeviceUnits.count(m, mig, ResourceNames.DEFAULT, Map.of(ResourceNames.GPU, migs)).units();
    state.putTopology(m, units, mig, List.of());

    JsonArray published = inspection.node("pix-node").getJsonArray("mig");
    assertEquals(
        new JsonArray().add(new JsonObject().put("gpu", gpu).put("devices", new JsonArray(migs))),
        published);

    state.putTopology(m, units, MigLayout.NONE, List.of());
    assertTrue(inspection.node("pix-node").getJsonArray("mig").isEmpty());
  }

  @Test
  @DisplayName(
      "a device held through a DRA claim names its pod and claim; the allocation carries claim and"
          + " driver, a device plugin's none; the node list counts the node's claims")
  void claimAllocations() {
    var m = TestMachines.pixNode();
    String claimed = m.gpus().get(0).id();
    String plugged = m.gpus().get(1).id();
    state.putTopology(
        m,
        1,
        List.of(
            new ReportedAllocation(
                "ml",
                "c",
                "uid-c",
                "main",
                ResourceNames.GPU,
                List.of(claimed),
                "ml/c-devices",
                "tandem.dev"),
            new ReportedAllocation(
                "ml", "d", "uid-d", "main", ResourceNames.GPU, List.of(plugged))));

    JsonObject node = inspection.node("pix-node");
    JsonObject device = device(node, claimed);
    assertEquals("allocated", device.getString("state"));
    assertEquals("ml/c-devices", device.getString("claim"));
    assertEquals("c", device.getJsonObject("pod").getString("name"));
    assertNull(device(node, plugged).getString("claim"));
    JsonObject first = node.getJsonArray("allocations").getJsonObject(0);
    assertEquals(
        List.of("ml/c-devices", "tandem.dev"),
        List.of(first.getString("claim"), first.getString("driver")));
    assertNull(node.getJsonArray("allocations").getJsonObject(1).getString("claim"));
    assertEquals(1L, inspection.nodes().getJsonArray("nodes").getJsonObject(0).getLong("claims"));
  }

  private static JsonObject device(JsonObject node, String id) {
    JsonArray devices = node.getJsonArray("devices");
    for (int i = 0; i < devices.size(); i++) {
      if (id.equals(devices.getJsonObject(i).getString("id"))) {
        return devices.getJsonObject(i);
      }
    }
    throw new AssertionError("no device " + id);
  }
}
