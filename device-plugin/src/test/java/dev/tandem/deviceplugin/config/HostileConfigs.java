package dev.tandem.deviceplugin.config;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import dev.tandem.deviceplugin.hostile.InputChoices;

/**
 * Draws a plugin config file from a fuzzer's choices, knowing its grammar (the keys of {@link
 * ResourceConfig}, {@code selectors} and {@code gpu}) rather than flipping bytes: values nested up
 * to 100,000 levels, arrays of up to 200,000 entries, strings of up to a million characters or with
 * lone surrogates, numbers at the extremes of int, long and double (and past them), values of the
 * wrong type, keys repeated or unknown. The integer each of {@code slotsPerHca} and {@code
 * healthCheckSeconds} was given as, when it was given as an integer literal, is kept for the
 * target's oracle.
 */
final class HostileConfigs {

  /** A drawn file and the integer literals it gave its two counts (null when not one). */
  record Drawn(String json, String slotsPerHca, String healthCheckSeconds) {}

  private static final String[] MODES = {"hca", "shared", "sriov", "HCA", "", "joint", "hca "};
  private static final String[] NUMBERS = {
    "0",
    "1",
    "-1",
    "1000",
    "10000",
    "10001",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967297",
    "9223372036854775807",
    "99999999999999999999",
    "1.5",
    "1e3",
    "1e400",
    "-0",
    "1E-400",
    "\"12\"",
    "null",
    "true"
  };
  private static final String[] KEYS = {
    "mode",
    "resourceName",
    "slotsPerHca",
    "selectors",
    "healthCheckSeconds",
    "gpu",
    "allocateAllDevices",
    "resourceList",
    "configList",
    "rdmaHcaMax",
    "x"
  };
  private static final String[] SELECTOR_KEYS = {
    "vendorIds", "deviceIds", "linkLayers", "ibDevices", "netdevs", "pfNetdevs", "drivers"
  };
  private static final String[] GPU_KEYS = {
    "enabled", "cdi", "resourceName", "reservationSeconds", "migStrategy"
  };

  private final InputChoices c;
  private String slots;
  private String seconds;

  /**
   * What the strings of one file may add up to: the grammar's memory, not a limit of the parser.
   */
  private long charsLeft = 8L << 20;

  private HostileConfigs(FuzzedDataProvider d) {
    this.c = InputChoices.of(d);
  }

  static Drawn draw(FuzzedDataProvider d) {
    HostileConfigs g = new HostileConfigs(d);
    String json = g.file();
    return new Drawn(json, g.slots, g.seconds);
  }

  private int pick(int min, int max) {
    return c.pick(min, max);
  }

  private String file() {
    StringBuilder b = new StringBuilder("{");
    int n = pick(0, 8);
    for (int i = 0; i < n; i++) {
      String key = KEYS[pick(0, KEYS.length - 1)];
      b.append(i == 0 ? "" : ",").append('"').append(key).append("\":").append(value(key));
    }
    return b.append('}').toString();
  }

  private String value(String key) {
    String v =
        switch (key) {
          case "mode" -> pick(0, 3) == 0 ? number() : quoted(MODES[pick(0, MODES.length - 1)]);
          case "slotsPerHca" -> slots = number();
          case "healthCheckSeconds" -> seconds = number();
          case "selectors" -> object(SELECTOR_KEYS);
          case "gpu" -> object(GPU_KEYS);
          case "resourceName" -> string();
          default -> pick(0, 1) == 0 ? number() : array();
        };
    if (pick(0, 15) != 0) {
      return v;
    }
    if (key.equals("slotsPerHca")) {
      slots = null;
    } else if (key.equals("healthCheckSeconds")) {
      seconds = null;
    }
    return nested(v);
  }

  private String object(String[] keys) {
    StringBuilder b = new StringBuilder("{");
    int n = pick(0, 4);
    for (int i = 0; i < n; i++) {
      String key = keys[pick(0, keys.length - 1)];
      String v =
          switch (key) {
            case "enabled", "cdi" -> pick(0, 1) == 0 ? "true" : number();
            case "reservationSeconds" -> number();
            case "resourceName" -> string();
            default -> array();
          };
      b.append(i == 0 ? "" : ",").append('"').append(key).append("\":").append(v);
    }
    return b.append('}').toString();
  }

  private String array() {
    int n =
        switch (pick(0, 3)) {
          case 0 -> 0;
          case 1 -> pick(1, 4);
          case 2 -> pick(1_000, 200_000);
          default -> 1;
        };
    StringBuilder b = new StringBuilder("[");
    String one = pick(0, 3) == 0 ? number() : string();
    for (int i = 0; i < n && charsLeft > 0; i++) {
      String s = pick(0, 7) == 0 ? string() : one;
      charsLeft -= s.length() + 1;
      b.append(i == 0 ? "" : ",").append(s);
    }
    return b.append(']').toString();
  }

  private String number() {
    return NUMBERS[pick(0, NUMBERS.length - 1)];
  }

  private String string() {
    return switch (pick(0, 5)) {
      case 0 -> quoted("rdma/hca");
      case 1 -> quoted("mlx5_" + pick(0, 99));
      case 2 -> quoted("a".repeat((int) Math.min(pick(1, 1_000_000), Math.max(1, charsLeft))));
      case 3 -> "\"\\ud800\"";
      case 4 -> quoted("0x15b3");
      default -> quoted("example.com/" + "x".repeat(pick(0, 300)));
    };
  }

  private String nested(String v) {
    int depth = pick(1, 100_000);
    return "[".repeat(depth) + v + "]".repeat(depth);
  }

  private static String quoted(String s) {
    return '"' + s + '"';
  }
}
