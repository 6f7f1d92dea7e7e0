package dev.tandem.extender.state;

import java.util.Arrays;
import java.util.List;

/**
 * The nodes kube-scheduler asks about in one filter or prioritize request, in its order, each
 * resolved to its slot in a {@link NodeDirectory} while the request is decoded. A node the
 * directory holds keeps no string of its own; a name it does not hold (a node that came after the
 * directory was built, or that Tandem does not know) keeps the string as sent.
 */
public final class CandidateNodes {

  private final NodeDirectory directory;
  private int[] slots;
  private String[] names;
  private int size;
  private long nameChars;

  private CandidateNodes(NodeDirectory directory, int capacity) {
    this.directory = directory;
    this.slots = new int[Math.max(8, capacity)];
    this.names = new String[slots.length];
  }

  /** An empty list to fill, resolving against {@code directory}. */
  public static CandidateNodes in(NodeDirectory directory, int expected) {
    return new CandidateNodes(directory, expected);
  }

  /** The names, resolved against {@code directory}. */
  public static CandidateNodes of(NodeDirectory directory, List<String> names) {
    CandidateNodes out = new CandidateNodes(directory, names.size());
    for (String n : names) {
      out.add(n);
    }
    return out;
  }

  /** Adds the name in {@code text[offset, offset + length)}, read in place when it is known. */
  public void add(char[] text, int offset, int length) {
    int slot = directory.slotOf(text, offset, length);
    append(slot, slot < 0 ? new String(text, offset, length) : null, length);
  }

  public void add(String name) {
    char[] text = name.toCharArray();
    int slot = directory.slotOf(text, 0, text.length);
    append(slot, slot < 0 ? name : null, name.length());
  }

  private void append(int slot, String name, int length) {
    if (size == slots.length) {
      slots = Arrays.copyOf(slots, size * 2);
      names = Arrays.copyOf(names, size * 2);
    }
    slots[size] = slot;
    names[size++] = name;
    nameChars += length;
  }

  public int size() {
    return size;
  }

  /** The directory the names were resolved against. */
  public NodeDirectory directory() {
    return directory;
  }

  /** The i-th node's slot in {@link #directory()}, or -1 when the directory does not hold it. */
  public int slot(int i) {
    return slots[i];
  }

  /** The i-th name, as sent. */
  public String name(int i) {
    String n = names[i];
    return n != null ? n : directory.nameAt(slots[i]);
  }

  /** The i-th node's cell with a current entry, or null when the cluster state does not know it. */
  public NodeCell cell(int i) {
    int slot = slots[i];
    return slot >= 0 ? directory.cellAt(slot) : directory.liveCell(names[i]);
  }

  /** The characters of all names together: what an answer naming them all needs, unescaped. */
  public long nameChars() {
    return nameChars;
  }
}
