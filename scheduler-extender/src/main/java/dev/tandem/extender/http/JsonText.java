package dev.tandem.extender.http;

import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * A compact JSON writer for the hot answers (filter, prioritize). It writes exactly what Jackson's
 * default generator writes (no whitespace; {@code "} and {@code \} escaped; control characters as
 * {@code \b \t \n \f \r}, others and each half of a surrogate pair as a six-character backslash-u
 * escape; everything else as UTF-8), so the bytes on the wire do not change. Strings passed to
 * {@link #cachedString} (failure reasons, repeated across thousands of nodes) are escaped once per
 * answer.
 */
final class JsonText {

  private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

  private byte[] bytes;
  private int size;
  private final Map<String, byte[]> escaped = new HashMap<>();

  /** The last string {@link #cachedString} wrote: runs of nodes share a reason. */
  private String lastCached;

  private byte[] lastEscaped;

  JsonText(int sizeHint) {
    bytes = new byte[Math.max(64, sizeHint)];
  }

  JsonText raw(char c) {
    ensure(1);
    bytes[size++] = (byte) c;
    return this;
  }

  JsonText raw(String ascii) {
    int n = ascii.length();
    ensure(n);
    for (int i = 0; i < n; i++) {
      bytes[size++] = (byte) ascii.charAt(i);
    }
    return this;
  }

  JsonText rawUtf8(String json) {
    return append(json.getBytes(StandardCharsets.UTF_8));
  }

  JsonText number(int value) {
    return raw(Integer.toString(value));
  }

  /** A quoted, escaped JSON string. */
  JsonText string(String s) {
    int n = s.length();
    ensure(n + 2);
    int start = size;
    bytes[size++] = '"';
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') {
        size = start;
        return append(escape(s));
      }
      bytes[size++] = (byte) c;
    }
    bytes[size++] = '"';
    return this;
  }

  /** Like {@link #string}, escaping each distinct string once per writer. */
  JsonText cachedString(String s) {
    if (s != lastCached) {
      lastEscaped = escaped.computeIfAbsent(s, JsonText::escape);
      lastCached = s;
    }
    return append(lastEscaped);
  }

  /**
   * {@code text[from, to)} in quotes: bytes that are already JSON string content (printable ASCII
   * without a quote or backslash), such as a {@link dev.tandem.extender.state.NodeDirectory} plain
   * name.
   */
  JsonText quoted(byte[] text, int from, int to) {
    int n = to - from;
    ensure(n + 2);
    bytes[size++] = '"';
    System.arraycopy(text, from, bytes, size, n);
    size += n;
    bytes[size++] = '"';
    return this;
  }

  /**
   * The text written so far, not copied: the buffer wraps this writer's array (an answer of
   * thousands of nodes is hundreds of KB), so write nothing more after this.
   */
  Buffer toBuffer() {
    return BufferInternal.buffer(Unpooled.wrappedBuffer(bytes, 0, size));
  }

  private JsonText append(byte[] b) {
    ensure(b.length);
    System.arraycopy(b, 0, bytes, size, b.length);
    size += b.length;
    return this;
  }

  private void ensure(int more) {
    if (size + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }

  /** The string as Jackson writes it, quotes included. */
  static byte[] escape(String s) {
    StringBuilder out = new StringBuilder(s.length() + 8).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\t' -> out.append("\\t");
        case '\n' -> out.append("\\n");
        case '\f' -> out.append("\\f");
        case '\r' -> out.append("\\r");
        default -> {
          if (c < 0x20 || Character.isSurrogate(c)) {
            out.append("\\u")
                .append((char) HEX[c >> 12])
                .append((char) HEX[(c >> 8) & 0xF])
                .append((char) HEX[(c >> 4) & 0xF])
                .append((char) HEX[c & 0xF]);
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString().getBytes(StandardCharsets.UTF_8);
  }
}
