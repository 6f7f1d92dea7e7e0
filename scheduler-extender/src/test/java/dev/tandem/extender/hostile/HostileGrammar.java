package dev.tandem.extender.hostile;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import dev.tandem.extender.hostile.HostileRequest.Framing;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;

/**
 * Draws a request to a verb from a fuzzer's choices, knowing the grammar rather than flipping
 * bytes: HTTP framing and headers ({@code Expect}, {@code Transfer-Encoding}, {@code
 * Content-Length}, {@code Content-Encoding}, {@code Connection}, oversized headers) and
 * kube-scheduler's bodies (ExtenderArgs, ExtenderPreemptionArgs, ExtenderBindingArgs) with nesting,
 * repetition, huge values, numeric extremes (quantities with huge exponents or digits) and invalid
 * UTF-8. The first container's GPU quantity is drawn first, and a quantity's first byte can choose
 * a huge exponent outright, so that inputs of one or two bytes already reach it; the draws that
 * follow fall back to what kube-scheduler sends when the data runs out.
 *
 * <p>The system property {@code tandem.fuzz.without} (comma-separated {@code expect}, {@code
 * framing}, {@code quantity}) leaves a dimension out: how a class already found is set aside to
 * find the next one on an unfixed tree.
 */
public final class HostileGrammar {

  private static final String[] VERBS = {"filter", "prioritize", "bind", "preempt"};
  private static final String[] NODES = {"pix-node", "split-node", "gpu-only", "unknown-node"};
  private static final String[] RESOURCES = {
    "nvidia.com/gpu", "rdma/hca", "cpu", "memory", "example.com/fpga"
  };
  private static final String[] EXPECTS = {
    "100-continue", "", "fly", "100-continue, fly", "100-Continue", "100-continue;x=1", "200-ok"
  };
  private static final String[] SUFFIXES = {
    "", "m", "k", "M", "G", "E", "Ki", "Mi", "Ei", "n", "u", "e", "E", "e-", "e+", "Zi"
  };
  private static final long[] EXPONENTS = {
    0,
    1,
    3,
    9,
    18,
    19,
    20,
    308,
    4_000,
    1_000_000,
    12_000_000,
    99_999_999,
    999_999_999,
    Integer.MAX_VALUE,
    1L << 31,
    1L << 32,
    Long.MAX_VALUE
  };

  /** The first byte of a quantity with these bits set draws {@link #hugeExponent()}. */
  private static final int HUGE_EXPONENT = 0b1111;

  private static final long[] HUGE_EXPONENTS = {
    1_000_000, 12_000_000, 99_999_999, 999_999_999, Integer.MAX_VALUE, 4_000_000, -12_000_000
  };

  private final FuzzedDataProvider d;
  private final Set<String> without;

  private HostileGrammar(FuzzedDataProvider d) {
    this.d = d;
    this.without =
        Set.copyOf(Arrays.asList(System.getProperty("tandem.fuzz.without", "").split(",")));
  }

  /** A request to one of the four verbs under {@code /scheduler}. */
  public static HostileRequest draw(FuzzedDataProvider d) {
    return new HostileGrammar(d).request();
  }

  /** The first container's GPU quantity: drawn first, so that the shortest inputs vary it. */
  private String firstQuantity;

  private HostileRequest request() {
    firstQuantity = without.contains("quantity") ? "2" : quantity();
    String verb = d.pickValue(VERBS);
    // each choice falls back to what kube-scheduler's Go client sends when the data runs out
    String expect = !without.contains("expect") && d.consumeBoolean() ? expect() : null;
    Framing framing =
        without.contains("framing") ? Framing.CONTENT_LENGTH : d.pickValue(Framing.values());
    String encoding =
        d.consumeBoolean() ? d.pickValue(new String[] {"gzip", "br", "identity"}) : null;
    boolean gzip = encoding != null && d.consumeBoolean();
    String connection =
        d.consumeBoolean() ? d.pickValue(new String[] {"close", "keep-alive", "Upgrade"}) : null;
    int padding = d.consumeBoolean() ? d.pickValue(new Integer[] {1, 100, 8_000, 20_000}) : 0;
    byte[] body = mangled(body(verb));
    return new HostileRequest(
        "/scheduler/" + verb, expect, framing, encoding, gzip, connection, padding, body);
  }

  private String expect() {
    return d.consumeBoolean() ? d.pickValue(EXPECTS) : headerText(d.consumeString(40));
  }

  /** Printable text for a header value (a CR or LF would start a header of its own). */
  private static String headerText(String s) {
    StringBuilder b = new StringBuilder(s.length());
    s.chars().filter(c -> c >= 0x20 && c < 0x7f).forEach(c -> b.append((char) c));
    return b.toString();
  }

  private String body(String verb) {
    return switch (verb) {
      case "bind" -> bindArgs();
      case "preempt" -> preemptArgs();
      default -> extenderArgs();
    };
  }

  private String extenderArgs() {
    StringBuilder b = new StringBuilder("{\"Pod\":").append(pod());
    if (d.consumeBoolean()) {
      b.append(",\"NodeNames\":[");
      int n = d.consumeBoolean() ? d.consumeInt(0, 8) : d.consumeInt(0, 30_000);
      for (int i = 0; i < n; i++) {
        b.append(i == 0 ? "" : ",").append('"').append(node()).append('"');
      }
      b.append("],\"Nodes\":null");
    } else {
      b.append(",\"Nodes\":{\"items\":[");
      int n = d.consumeInt(0, 8);
      for (int i = 0; i < n; i++) {
        b.append(i == 0 ? "" : ",").append("{\"metadata\":{\"name\":\"").append(node());
        b.append("\"}}");
      }
      b.append("]}");
    }
    return nested(b).append('}').toString();
  }

  private String preemptArgs() {
    StringBuilder b = new StringBuilder("{\"Pod\":").append(pod());
    b.append(",\"NodeNameToMetaVictims\":{");
    int n = d.consumeInt(0, 4);
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ",").append('"').append(node()).append("\":{\"Pods\":[");
      int v = d.consumeInt(0, 3);
      for (int j = 0; j < v; j++) {
        b.append(j == 0 ? "" : ",").append("{\"UID\":\"v").append(j).append("\"}");
      }
      b.append("],\"NumPDBViolations\":").append(number()).append('}');
    }
    return nested(b.append('}')).append('}').toString();
  }

  private String bindArgs() {
    return "{\"PodName\":\"p\",\"PodNamespace\":\"ns\",\"PodUID\":\""
        + d.pickValue(new String[] {"uid-1", "", "unknown"})
        + "\",\"Node\":\""
        + node()
        + "\"}";
  }

  private String node() {
    return d.consumeBoolean() ? "n" + d.consumeInt(0, 1_000_000) : d.pickValue(NODES);
  }

  private String pod() {
    StringBuilder b = new StringBuilder("{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",");
    b.append("\"uid\":\"uid-1\",\"annotations\":{");
    if (d.consumeBoolean()) {
      b.append("\"tandem.dev/alignment\":\"").append(d.pickValue(new String[] {"switch", "rack"}));
      b.append("\",");
    }
    int big = d.consumeBoolean() ? d.pickValue(new Integer[] {1_000, 300_000}) : 0;
    b.append("\"note\":\"").append("a".repeat(big)).append("\"}},\"spec\":{");
    b.append("\"initContainers\":").append(containers(true));
    b.append(",\"containers\":").append(containers(false));
    return b.append("}}").toString();
  }

  private String containers(boolean init) {
    StringBuilder b = new StringBuilder("[");
    int n = d.consumeInt(init ? 0 : 1, 3);
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ",").append("{\"name\":\"c").append(i).append('"');
      if (init && d.consumeBoolean()) {
        b.append(",\"restartPolicy\":\"Always\"");
      }
      String first = !init && i == 0 ? firstQuantity : null;
      b.append(",\"resources\":{\"limits\":").append(quantities(first));
      b.append(",\"requests\":").append(quantities(null)).append("}}");
    }
    return b.append(']').toString();
  }

  /** A resource map, led by {@code nvidia.com/gpu: gpus} when that is not null. */
  private String quantities(String gpus) {
    StringBuilder b = new StringBuilder("{");
    if (gpus != null) {
      b.append("\"nvidia.com/gpu\":\"").append(gpus).append("\",");
    }
    int n = d.consumeInt(0, 2);
    for (int i = 0; i < n; i++) {
      b.append(i == 0 ? "" : ",").append('"').append(d.pickValue(RESOURCES)).append("\":");
      String q = without.contains("quantity") ? Integer.toString(d.consumeInt(0, 8)) : quantity();
      b.append(d.consumeBoolean() ? q : "\"" + q + "\"");
    }
    if (b.charAt(b.length() - 1) == ',') {
      b.setLength(b.length() - 1);
    }
    return b.append('}').toString();
  }

  /**
   * A quantity by Kubernetes' grammar, with extremes: sign, digits, fraction, suffix, exponent. Its
   * first byte chooses the shape: an even byte a small count, {@code 0bxxxx1111} a huge exponent
   * (one byte of input reaches it, and no draw that follows can spoil it), any other odd byte the
   * whole grammar. An even or odd byte means what {@code consumeBoolean} read there before the huge
   * exponent had a shape of its own (both take one byte), so a kept input means what it did unless
   * one of its quantity bytes ends in {@code 1111}.
   */
  private String quantity() {
    int shape = d.consumeByte();
    if ((shape & 1) == 0) {
      return Integer.toString(d.consumeInt(0, 8));
    }
    return (shape & HUGE_EXPONENT) == HUGE_EXPONENT ? hugeExponent() : grammarQuantity();
  }

  /**
   * A few digits times ten to a power of millions or more: what an exponent costs when a reader
   * builds the whole number. {@code 1e1000000} comes first (the fallback when the data runs out).
   */
  private String hugeExponent() {
    String mantissa = d.pickValue(new String[] {"1", "9", "0.5", "123"});
    return mantissa + (d.consumeBoolean() ? 'E' : 'e') + d.pickValue(HUGE_EXPONENTS);
  }

  private String grammarQuantity() {
    StringBuilder b = new StringBuilder();
    b.append(d.pickValue(new String[] {"", "", "-", "+"}));
    b.append(digits());
    if (d.consumeBoolean()) {
      b.append('.').append(digits());
    }
    String suffix = d.pickValue(SUFFIXES);
    b.append(suffix);
    if (suffix.startsWith("e") || suffix.equals("E") && d.consumeBoolean()) {
      b.append(d.consumeBoolean() ? d.pickValue(EXPONENTS) : d.consumeLong());
    }
    return b.toString();
  }

  private String digits() {
    int n = d.consumeBoolean() ? d.pickValue(new Integer[] {19, 400, 100_000}) : d.consumeInt(0, 3);
    StringBuilder b = new StringBuilder(n + 1).append(d.consumeInt(0, 9));
    char fill = (char) ('0' + d.consumeInt(0, 9));
    return b.append(String.valueOf(fill).repeat(n)).toString();
  }

  private String number() {
    return d.consumeBoolean()
        ? Long.toString(d.consumeLong())
        : "1" + "0".repeat(d.consumeInt(0, 2_000)) + d.pickValue(new String[] {"", "e999999999"});
  }

  /** An unknown key holding nesting of arrays or objects, up to thousands of levels. */
  private StringBuilder nested(StringBuilder b) {
    if (!d.consumeBoolean()) {
      return b;
    }
    int depth = d.pickValue(new Integer[] {10, 200, 1_500, 100_000});
    boolean arrays = d.consumeBoolean();
    b.append(",\"x\":");
    b.append((arrays ? "[" : "{\"a\":").repeat(depth)).append('1');
    return b.append((arrays ? "]" : "}").repeat(depth));
  }

  /** The body's bytes, at times with invalid UTF-8 put in or cut short. */
  private byte[] mangled(String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    int how = d.consumeInt(0, 3);
    if (how == 1 && bytes.length > 0) {
      bytes = bytes.clone();
      int at = d.consumeInt(0, bytes.length - 1);
      bytes[at] = (byte) (int) d.pickValue(new Integer[] {0xff, 0xc3, 0x80, 0xed});
    } else if (how == 2 && bytes.length > 0) {
      bytes = Arrays.copyOf(bytes, d.consumeInt(0, bytes.length - 1));
    }
    return bytes;
  }
}
