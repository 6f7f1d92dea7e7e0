package dev.tandem.extender.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("node directory: the filter's index of node names is never wrong, only rebuilt")
class NodeDirectoryTest {

  private final ClusterState state =
      ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null).state();

  private void put(String name) {
    state.putTopology(TestMachines.machine(name, new Switch(0, 2, 2)), 1, List.of());
  }

  /** The node's cell as a request naming it finds it (null: the state does not know the node). */
  private static NodeCell cell(NodeDirectory d, String name) {
    return CandidateNodes.of(d, List.of(name)).cell(0);
  }

  private static int hash(String name) {
    return NodeDirectory.hashOf(name.toCharArray(), 0, name.length());
  }

  @Test
  @DisplayName(
      "names with one hash are told apart, read from strings or from a decoder's characters")
  void sameHashDifferentNames() {
    // found by searching gpu-node-0, -1, ... for two names with one hash
    List<String> names = List.of("gpu-node-259523", "gpu-node-433220", "gpu-node-259524");
    names.forEach(this::put);
    assertEquals(hash(names.get(0)), hash(names.get(1)));
    NodeDirectory d = state.directory();
    for (String n : names) {
      assertSame(state.node(n), cell(d, n).entry(), n);
      char[] text = ("[\"" + n + "\"]").toCharArray();
      int slot = d.slotOf(text, 2, n.length());
      assertEquals(n, d.nameAt(slot));
      assertEquals(hash(n), NodeDirectory.hashOf(text, 2, n.length()), n);
    }
    assertNull(cell(d, "gpu-node-433221"));
    assertEquals(-1, d.slotOf("gpu-node-1".toCharArray(), 0, 10));
    assertNull(cell(d, ""));
    assertEquals(-1, d.slotOf(new char[0], 0, 0));
  }

  @Test
  @DisplayName(
      "cloud node names (EKS ip-10-0-12-34.ec2.internal, GKE pool-…-0a1z) spread over the table")
  void cloudNames() {
    Set<Integer> hashes = new HashSet<>();
    Set<Integer> gke = new HashSet<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      String n = String.format("ip-10-%d-%d-%d.ec2.internal", i / 2000, (i / 250) % 8, i % 250);
      names.add(n);
      hashes.add(hash(n));
      gke.add(
          hash(
              "gke-prod-gpu-pool-8c3f2a1b-"
                  + "0".repeat(4 - Integer.toString(i, 36).length())
                  + Integer.toString(i, 36)));
    }
    assertTrue(hashes.size() > 4990, "distinct hashes of 5,000 EKS names: " + hashes.size());
    assertTrue(gke.size() > 4990, "distinct hashes of 5,000 GKE names: " + gke.size());
    names.subList(0, 200).forEach(this::put);
    NodeDirectory d = state.directory();
    for (String n : names.subList(0, 200)) {
      assertEquals(n, d.nameAt(d.slotOf(n.toCharArray(), 0, n.length())));
    }
  }

  @Test
  @DisplayName("a directory taken before a node came, went, or came back still answers right")
  void staleDirectory() {
    put("node-a");
    put("node-b");
    NodeDirectory before = state.directory();
    put("node-c");
    assertSame(state.node("node-c"), cell(before, "node-c").entry(), "added after the build");
    state.removeTopology("node-a");
    assertNull(cell(before, "node-a"), "removed after the build");
    put("node-a");
    NodeCell back = cell(before, "node-a");
    assertSame(state.node("node-a"), back.entry(), "removed and added back after the build");
    NodeDirectory after = state.directory();
    assertNotSame(before, after, "membership changed: a new directory");
    assertSame(back, cell(after, "node-a"));
    assertSame(after, state.directory(), "no change: the same directory");
  }

  @Test
  @DisplayName("a node's change (new version) keeps its cell: the directory sees the new entry")
  void changeKeepsCell() {
    put("node-a");
    NodeDirectory d = state.directory();
    NodeCell cell = cell(d, "node-a");
    NodeEntry first = cell.entry();
    state.putTopology(TestMachines.machine("node-a", new Switch(0, 4, 4)), 1, List.of());
    assertSame(d, state.directory());
    assertSame(cell, cell(d, "node-a"));
    assertNotSame(first, cell.entry());
    assertEquals(4, cell.entry().machine().gpus().size());
  }
}
