package dev.tandem.extender.inspect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.MigEntry;
import dev.tandem.api.identity.DeviceUnits;
import dev.tandem.api.identity.MigLayout;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.verbs.NodeEvaluator;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("inspection of one node: the MIG devices the agent published")
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
}
