package dev.tandem.api.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RailMapTest {

  private static final String MAP =
      """
      [{"nodeSelector": {"node.kubernetes.io/instance-type": "a3", "zone": "z1"},
        "rails": {"mlx5_0": 0, "eth1": 1, "0000:c0:00.0": 2}},
       {"rails": {"mlx5_0": 5}}]
      """;

  @Test
  @DisplayName("a node takes the first entry whose labels it all carries; no selector: every node")
  void firstMatchingEntry() {
    RailMap map = RailMap.parse(MAP);
    assertEquals(
        Optional.of(Map.of("mlx5_0", 0, "eth1", 1, "0000:c0:00.0", 2)),
        map.forNode(Map.of("node.kubernetes.io/instance-type", "a3", "zone", "z1", "x", "y")));
    assertEquals(
        Optional.of(Map.of("mlx5_0", 5)),
        map.forNode(Map.of("node.kubernetes.io/instance-type", "a3")));
    assertEquals(Optional.empty(), RailMap.parse("[]").forNode(Map.of()));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{}                                   | is not a JSON array",
        "[{\"rails\": {\"mlx5_0\": -1}}]       | entry 0.rails.mlx5_0 is -1, not a rail number",
        "[{\"rails\": {\"mlx5_0\": 1.5}}]      | entry 0.rails.mlx5_0 is 1.5, not a rail number",
        "[{\"rails\": {\"mlx5_0\": \"0\"}}]    | entry 0.rails.mlx5_0 is \"0\", not a rail number",
        "[{\"rails\": {}}, {\"nodeselector\": {}}] | entry 1 has an unknown field 'nodeselector'",
        "[{\"nodeSelector\": {\"a\": 1}, \"rails\": {}}] | entry 0.nodeSelector.a is not a string",
        "[{\"nodeSelector\": {}}]              | entry 0.rails is missing",
        "[1]                                  | entry 0 is not an object",
        "[{                                   | is not JSON"
      })
  @DisplayName("a bad mapping is refused naming the entry and the field")
  void refusals(String json, String message) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> RailMap.parse(json));
    assertEquals(true, e.getMessage().startsWith(message), e.getMessage());
  }
}
