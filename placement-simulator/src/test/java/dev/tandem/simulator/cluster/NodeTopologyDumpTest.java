package dev.tandem.simulator.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A kubectl dump of NodeTopology objects, and what is said when an item is not one. */
class NodeTopologyDumpTest {

  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  private static String item(String node) {
    return JSON.asJson(
        NodeTopologyMapper.toResource(
            TestMachines.machine(node, new Switch(0, 2, 2), new Switch(1, 2, 2))));
  }

  /** A List as kubectl prints it: one item per line from line 3 on. */
  private static String list(String... items) {
    return "{\"apiVersion\": \"v1\",\n\"items\": [\n"
        + String.join(",\n", items)
        + "\n],\n\"kind\": \"List\"}\n";
  }

  @Test
  @DisplayName("a List, one object or a bare array: one machine per NodeTopology")
  void shapes() {
    assertEquals(2, NodeTopologyDump.read(list(item("a"), item("b")), "d.json").size());
    assertEquals("a", NodeTopologyDump.read(item("a"), "d.json").get(0).nodeName());
    assertEquals(2, NodeTopologyDump.read("[" + item("a") + "," + item("b") + "]", "d").size());
  }

  @Test
  @DisplayName("an item the mapper refuses: its line, its number and the field at fault")
  void badField() {
    String bad = item("b").replace("\"kind\":\"GPU\"", "\"kind\":\"TPU\"");
    String message =
        assertThrows(
                ClusterFileException.class,
                () -> NodeTopologyDump.read(list(item("a"), bad), "d.json"))
            .getMessage();
    assertTrue(message.startsWith("d.json:4: item 2 (b): "), message);
    assertTrue(message.contains(".kind: 'TPU' is not one of [GPU, HCA]"), message);
  }

  @Test
  @DisplayName("a value of the wrong type: the item's line and the field's path")
  void wrongType() {
    String bad = item("a").replaceFirst("\"healthy\":true", "\"healthy\":[1]");
    String message =
        assertThrows(ClusterFileException.class, () -> NodeTopologyDump.read(list(bad), "d.json"))
            .getMessage();
    assertTrue(message.startsWith("d.json:3: item 1 (a): not a valid NodeTopology: "), message);
    assertTrue(message.contains("field 'spec.devices[0].healthy'"), message);
  }

  @Test
  @DisplayName("another kind of object, or no object at all, is refused naming the line")
  void notNodeTopologies() {
    String pod = "{\"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"}}";
    assertEquals(
        "d.json:3: item 1: field 'kind' is 'Pod', expected NodeTopology",
        assertThrows(ClusterFileException.class, () -> NodeTopologyDump.read(list(pod), "d.json"))
            .getMessage());
    assertEquals(
        "d.json: no NodeTopology object in it",
        assertThrows(ClusterFileException.class, () -> NodeTopologyDump.read(list(), "d.json"))
            .getMessage());
    assertTrue(
        assertThrows(ClusterFileException.class, () -> NodeTopologyDump.read("{\n,}", "d.json"))
            .getMessage()
            .startsWith("d.json:2:1: not JSON: "));
  }
}
