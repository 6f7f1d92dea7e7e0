package dev.tandem.api.crd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.rail.Rails;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A NodeTopology written by a newer agent reads in this release: fields it does not know, at any
 * depth, are skipped, as the plan codec skips a newer extender's keys. Otherwise an extender or a
 * plugin older than the agents of a rolling upgrade would stop reading every node.
 */
class NewerFieldsTest {

  @Test
  @DisplayName(
      "a NodeTopology with a field unknown to this release in every object reads as without them")
  void unknownFieldsAtEveryDepthAreSkipped() {
    NodeTopology written =
        NodeTopologyMapper.toResource(
            Rails.byPciOrder(TestMachines.twoSwitchesAndLoneHca("gpu-1")).machine(),
            new NodeTopologyStatus(
                "2026-11-29T03:00:00Z",
                List.of(
                    new AllocationEntry(
                        "u1",
                        "ml",
                        "p",
                        "main",
                        "nvidia.com/gpu",
                        List.of("GPU-1"),
                        true,
                        null,
                        null)),
                List.of(
                    new AuditEntry("u1", "ml", "p", "PIX", "switch/required", true, List.of(0))),
                List.of("a note"),
                List.of(new UnitEntry("nvidia.com/gpu", "GPU-1", 2)),
                List.of(new MigEntry("GPU-1", List.of("MIG-1")))));
    JsonNode json = Serialization.jsonMapper().valueToTree(written);
    int objects = addFieldEverywhere(json);
    NodeTopology read = Serialization.unmarshal(json.toString(), NodeTopology.class);
    assertEquals(written.getSpec(), read.getSpec());
    assertEquals(written.getStatus(), read.getStatus());
    assertEquals(
        NodeTopologyMapper.toMachine(written), NodeTopologyMapper.toMachine(read), "" + objects);
  }

  /** Adds {@code fromANewerRelease} to every object in the tree; how many objects there are. */
  private static int addFieldEverywhere(JsonNode node) {
    int count = 0;
    for (JsonNode child : node) {
      count += addFieldEverywhere(child);
    }
    if (node instanceof ObjectNode o) {
      o.putObject("fromANewerRelease").put("nested", 1);
      count++;
    }
    return count;
  }
}
