package dev.tandem.extender.state;

import java.util.Collection;
import java.util.Map;

/**
 * A read-only index from node name to {@link NodeCell}, laid out flat for the filter's loop over
 * thousands of freshly decoded names: open addressing over int arrays, a hash of the name's ends
 * (node names share long prefixes and differ at the end; a full {@link String#hashCode} of every
 * decoded name cost more than the rest of the lookup), and key strings copied at build time so
 * that they sit together in memory. Built when nodes come or go; between builds, a name it does
 * not hold (or whose node went and came back) is looked up in the live map, so a directory is
 * never wrong, only slower.
 */
public final class NodeDirectory {

  private final long generation;
  private final NodeCell[] cells;
  private final int[] hashes;
  private final String[] keys;
  private final int[] table;
  private final int mask;
  private final Map<String, NodeCell> live;

  private NodeDirectory(long generation, NodeCell[] cells, Map<String, NodeCell> live) {
    this.generation = generation;
    this.cells = cells;
    this.live = live;
    this.hashes = new int[cells.length];
    this.keys = new String[cells.length];
    this.table = new int[Math.max(16, Integer.highestOneBit(Math.max(1, cells.length)) << 2)];
    this.mask = table.length - 1;
    for (int s = 0; s < cells.length; s++) {
      place(s);
    }
  }

  /** A directory of the cells, built when the state's membership was {@code generation}. */
  static NodeDirectory of(long generation, Collection<NodeCell> cells, Map<String, NodeCell> live) {
    return new NodeDirectory(generation, cells.toArray(NodeCell[]::new), live);
  }

  long generation() {
    return generation;
  }

  /** The node's cell with a current entry, or null when the state does not know the node. */
  public NodeCell find(String name) {
    NodeCell c = probe(name);
    return c != null && c.entry() != null ? c : live.get(name);
  }

  private void place(int slot) {
    String name = cells[slot].name();
    keys[slot] = new String(name.toCharArray());
    int h = hashOf(name);
    hashes[slot] = h;
    int i = spread(h) & mask;
    while (table[i] != 0) {
      i = (i + 1) & mask;
    }
    table[i] = slot + 1;
  }

  private NodeCell probe(String name) {
    int h = hashOf(name);
    for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
      int slot = table[i] - 1;
      if (slot < 0) {
        return null;
      }
      if (hashes[slot] == h && keys[slot].equals(name)) {
        return cells[slot];
      }
    }
  }

  /** The length, the first character and the last twelve. */
  static int hashOf(String name) {
    int n = name.length();
    int h = n == 0 ? 0 : 31 * n + name.charAt(0);
    for (int i = Math.max(1, n - 12); i < n; i++) {
      h = 31 * h + name.charAt(i);
    }
    return h;
  }

  private static int spread(int h) {
    return h ^ (h >>> 16);
  }
}
