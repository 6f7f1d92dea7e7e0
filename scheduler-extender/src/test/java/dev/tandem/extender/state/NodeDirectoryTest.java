package dev.tandem.extender.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.tandem.extender.TestMachines;
import dev.tandem.extender.TestMachines.Switch;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("node directory: the filter's index of node names is never wrong, only rebuilt")
class NodeDirectoryTest {

  private final ClusterState state = new ClusterState(Clock.systemUTC(), RecentPods.none(), null, false);

  private void put(String name) {
    state.putTopology(TestMachines.machine(name, new Switch(0, 2, 2)), 1, List.of());
  }

  /** A name built fresh, as the request decoder builds it. */
  private static String decoded(String name) {
    return new String(name.toCharArray());
  }

  @Test
  @DisplayName("names that share length, first character and last twelve (one hash) are told apart")
  void sameHashDifferentNames() {
    List<String> names = List.of("gpu-rack-a-node-000000000001", "gpu-rack-b-node-000000000001",
        "gpu-rack-c-node-000000000001", "gpu-rack-a-node-000000000002");
    names.forEach(this::put);
    assertEquals(NodeDirectory.hashOf(names.get(0)), NodeDirectory.hashOf(names.get(1)));
    NodeDirectory d = state.directory();
    for (String n : names) {
      assertSame(state.node(n), d.find(decoded(n)).entry(), n);
    }
    assertNull(d.find("gpu-rack-d-node-000000000001"));
    assertNull(d.find(""));
  }

  @Test
  @DisplayName("a directory taken before a node came, went, or came back still answers right")
  void staleDirectory() {
    put("node-a");
    put("node-b");
    NodeDirectory before = state.directory();
    put("node-c");
    assertSame(state.node("node-c"), before.find(decoded("node-c")).entry(), "added after the build");
    state.removeTopology("node-a");
    assertNull(before.find(decoded("node-a")), "removed after the build");
    put("node-a");
    NodeCell back = before.find(decoded("node-a"));
    assertSame(state.node("node-a"), back.entry(), "removed and added back after the build");
    NodeDirectory after = state.directory();
    assertNotSame(before, after, "membership changed: a new directory");
    assertSame(back, after.find(decoded("node-a")));
    assertSame(after, state.directory(), "no change: the same directory");
  }

  @Test
  @DisplayName("a node's change (new version) keeps its cell: the directory sees the new entry")
  void changeKeepsCell() {
    put("node-a");
    NodeDirectory d = state.directory();
    NodeCell cell = d.find(decoded("node-a"));
    NodeEntry first = cell.entry();
    state.putTopology(TestMachines.machine("node-a", new Switch(0, 4, 4)), 1, List.of());
    assertSame(d, state.directory());
    assertSame(cell, d.find(decoded("node-a")));
    assertNotSame(first, cell.entry());
    assertEquals(4, cell.entry().machine().gpus().size());
  }
}
