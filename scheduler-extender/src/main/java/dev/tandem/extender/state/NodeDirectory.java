package dev.tandem.extender.state;

import java.util.Arrays;
import java.util.Collection;
import java.util.Map;

/**
 * A read-only index from node name to {@link NodeCell}, laid out flat for the filter's loop over
 * thousands of names: open addressing over one array holding each name's hash beside its slot, a
 * hash of every character computed in four lanes, and the names' characters packed into one array.
 * The request decoder resolves each name to a slot straight from its own character buffer ({@link
 * #slotOf}), so a known node costs no string per request. Built when nodes come or go; between
 * builds, a name it does not hold (or whose node went and came back) is looked up in the live map,
 * so a directory is never wrong, only slower.
 */
public final class NodeDirectory {

  private static final NodeDirectory EMPTY = new NodeDirectory(-1, new NodeCell[0], Map.of());

  private final long generation;
  private final NodeCell[] cells;

  /**
   * Every key's characters, one after another: key {@code s} is {@code [start[s], start[s + 1])}.
   */
  private final char[] chars;

  private final int[] start;

  /** Open addressing: each used entry holds a name's hash (high half) and its slot + 1 (low). */
  private final long[] table;

  private final int mask;
  private final Map<String, NodeCell> live;

  private NodeDirectory(long generation, NodeCell[] cells, Map<String, NodeCell> live) {
    this.generation = generation;
    this.cells = cells;
    this.live = live;
    this.start = new int[cells.length + 1];
    this.chars = pack(cells, start);
    this.table = new long[Math.max(16, Integer.highestOneBit(Math.max(1, cells.length)) << 2)];
    this.mask = table.length - 1;
    for (int s = 0; s < cells.length; s++) {
      place(s);
    }
  }

  /** A directory of the cells, built when the state's membership was {@code generation}. */
  static NodeDirectory of(long generation, Collection<NodeCell> cells, Map<String, NodeCell> live) {
    return new NodeDirectory(generation, cells.toArray(NodeCell[]::new), live);
  }

  /** A directory of no nodes: every name decoded against it is kept as a string. */
  public static NodeDirectory empty() {
    return EMPTY;
  }

  long generation() {
    return generation;
  }

  /** How many nodes the directory was built with; slots are {@code 0..size()-1}. */
  public int size() {
    return cells.length;
  }

  /**
   * The slot of the name in {@code text[offset, offset + length)}, or -1 when the directory was
   * built without it. Reads the characters in place: nothing is allocated.
   */
  public int slotOf(char[] text, int offset, int length) {
    int h = hashOf(text, offset, length);
    for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
      long e = table[i];
      if (e == 0) {
        return -1;
      }
      if ((int) (e >>> 32) == h && sameKey((int) e - 1, text, offset, length)) {
        return (int) e - 1;
      }
    }
  }

  /** The name at a slot. */
  public String nameAt(int slot) {
    return cells[slot].name();
  }

  /**
   * The cell at a slot with a current entry; when that node has gone since the build (maybe to come
   * back in a new cell), its cell in the live map, or null.
   */
  public NodeCell cellAt(int slot) {
    NodeCell c = cells[slot];
    return c.entry() != null ? c : live.get(c.name());
  }

  /** The cell of a node the directory was built without (one that came since), or null. */
  NodeCell liveCell(String name) {
    return live.get(name);
  }

  private static char[] pack(NodeCell[] cells, int[] start) {
    int total = 0;
    for (NodeCell c : cells) {
      total += c.name().length();
    }
    char[] out = new char[total];
    for (int s = 0; s < cells.length; s++) {
      String name = cells[s].name();
      name.getChars(0, name.length(), out, start[s]);
      start[s + 1] = start[s] + name.length();
    }
    return out;
  }

  private boolean sameKey(int slot, char[] text, int offset, int length) {
    int from = start[slot];
    return start[slot + 1] - from == length
        && Arrays.equals(chars, from, from + length, text, offset, offset + length);
  }

  private void place(int slot) {
    int h = hashOf(chars, start[slot], start[slot + 1] - start[slot]);
    int i = spread(h) & mask;
    while (table[i] != 0) {
      i = (i + 1) & mask;
    }
    table[i] = (long) h << 32 | (slot + 1);
  }

  /**
   * A hash of every character: in four interleaved lanes, so that the multiplications of a long
   * name run side by side instead of one after another. (Hashing only a name's ends collided: cloud
   * node names such as {@code ip-10-0-12-34.ec2.internal} differ in the middle.) The lanes multiply
   * by a prime above 2^16, so no change of one character can cancel a change of the next in its
   * lane (with 31, counters such as {@code pool-8c3f-0a1z} collided).
   */
  static int hashOf(char[] text, int offset, int length) {
    int a = length;
    int b = 0;
    int c = 0;
    int d = 0;
    int i = 0;
    for (; i + 3 < length; i += 4) {
      a = LANE * a + text[offset + i];
      b = LANE * b + text[offset + i + 1];
      c = LANE * c + text[offset + i + 2];
      d = LANE * d + text[offset + i + 3];
    }
    for (; i < length; i++) {
      a = LANE * a + text[offset + i];
    }
    return mix(a, b, c, d);
  }

  private static final int LANE = 16_777_619;

  private static int mix(int a, int b, int c, int d) {
    return (a * 0x9E3779B1) ^ (b * 0x85EBCA77) ^ (c * 0xC2B2AE3D) ^ (d * 0x27D4EB2F);
  }

  private static int spread(int h) {
    return h ^ (h >>> 16);
  }
}
