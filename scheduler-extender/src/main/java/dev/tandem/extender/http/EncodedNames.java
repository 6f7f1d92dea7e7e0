package dev.tandem.extender.http;

import dev.tandem.extender.state.NodeDirectory;

/**
 * The JSON text of a directory's node names, built once per directory for the answer writer. A name
 * that is printable ASCII without a quote or backslash (as Kubernetes node names are) is its own
 * JSON text, unescaped: an answer copies its bytes as they are.
 */
final class EncodedNames {

  private final NodeDirectory directory;

  /** The names' bytes, one after another: slot {@code s} is {@code [start[s], start[s + 1])}. */
  private final byte[] ascii;

  private final int[] start;
  private final boolean[] plain;

  private EncodedNames(NodeDirectory directory) {
    this.directory = directory;
    int slots = directory.size();
    this.start = new int[slots + 1];
    for (int s = 0; s < slots; s++) {
      start[s + 1] = start[s] + directory.nameAt(s).length();
    }
    this.ascii = new byte[start[slots]];
    this.plain = new boolean[slots];
    for (int s = 0; s < slots; s++) {
      plain[s] = toAscii(directory.nameAt(s), start[s]);
    }
  }

  static EncodedNames of(NodeDirectory directory) {
    return new EncodedNames(directory);
  }

  /** Whether these are the names of {@code d}. */
  boolean encodes(NodeDirectory d) {
    return directory == d;
  }

  /** Whether the name at a slot is plain: its bytes are its JSON text. */
  boolean plain(int slot) {
    return plain[slot];
  }

  /** The names' bytes; a plain name's are {@code [start(slot), end(slot))}. */
  byte[] bytes() {
    return ascii;
  }

  int start(int slot) {
    return start[slot];
  }

  int end(int slot) {
    return start[slot + 1];
  }

  private boolean toAscii(String name, int from) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        return false;
      }
      ascii[from + i] = (byte) c;
    }
    return true;
  }
}
