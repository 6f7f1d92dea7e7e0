package dev.tandem.dra.hostile;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Draws one round of hostile input for the DRA driver from a fuzzer's choices, knowing the grammar
 * rather than flipping bytes: the state of the CDI directory (missing, a file, symlinks, an
 * unwritable place, files planted under the driver's own spec names and foreign specs), the claims
 * the kubelet names (namespaces, names and UIDs that are not what the API server makes), what the
 * API server answers for each (404, 5xx, bytes that are not JSON, invalid UTF-8, a claim whose
 * {@code status.allocation} holds unknown devices, other drivers' results, another pool, huge and
 * duplicated result lists, names that are not DNS labels, consumed capacities at the extremes), and
 * what the kubelet does (Prepare, specs tampered with, Prepare again, Unprepare).
 *
 * <p>While the fuzzer's data lasts the choices are its own; then they come from a generator seeded
 * by it (libFuzzer starts with inputs of a few bytes, which would otherwise choose the smallest of
 * everything).
 */
final class HostileClaims {

  /** The node, its pool and its driver. */
  static final String NODE = "n1";

  static final String DRIVER = "tandem.dev";

  /** Devices the node has (HCAs published in HCA-only mode; GPUs not published). */
  static final String[] DEVICES = {"mlx5-0", "mlx5-1", "mlx5-2", "gpu-a0", "gpu-b1"};

  /** What the CDI directory is before the round. */
  enum CdiState {
    DIRECTORY,
    MISSING,
    A_FILE,
    LINK_TO_A_DIRECTORY,
    LINK_TO_PROC,
    DANGLING_LINK,
    PARENT_A_FILE
  }

  /** What is planted at a claim's own spec name before the round. */
  enum Planted {
    NOTHING,
    EMPTY_DIRECTORY,
    FULL_DIRECTORY,
    LINK_OUTSIDE,
    FOREIGN_CONTENT,
    LEFTOVER_TEMP
  }

  /** What is done to a prepared claim's spec between two Prepare calls. */
  enum Tamper {
    NOTHING,
    DELETED,
    A_DIRECTORY,
    LINK_OUTSIDE,
    FOREIGN_CONTENT
  }

  /**
   * A claim as the kubelet names it and what the API server answers for it.
   *
   * @param status the API server's HTTP status for the GET of the claim
   * @param body the API server's body, as bytes (maybe not UTF-8)
   */
  record HostileClaim(
      String namespace, String uid, String name, Planted planted, int status, byte[] body) {}

  /**
   * One round.
   *
   * @param foreignSpecs foreign files in the CDI directory (other vendors'), which the driver must
   *     leave alone
   * @param tamper what happens to prepared specs before the second Prepare
   * @param prepareAgain whether the kubelet calls Prepare a second time
   * @param unprepare how many of the claims (in order) the kubelet unprepares at the end
   */
  record Round(
      CdiState cdi,
      int foreignSpecs,
      List<HostileClaim> claims,
      Tamper tamper,
      boolean prepareAgain,
      int unprepare) {}

  private static final String[] NAMES = {
    "", "Team", "a/b", "..", "a b", "a\u0000b", "é", "x.y", "-a", "a-", "\ud800", "%2e%2e", "?x=1"
  };
  private static final String[] UIDS = {"", "../x", "a/b", "-", "UID WITH SPACE", "\u00e9"};
  private static final String[] OTHER_DRIVERS = {
    "gpu.nvidia.com", "", "TANDEM.DEV", "tandem.dev.", "tandem.dev/x"
  };
  private static final String[] OTHER_POOLS = {"n2", "", "N1", "n1/x", "n1 "};
  private static final String[] OTHER_DEVICES = {
    "mlx5-9", "", "MLX5_0", "mlx5_0", "../../etc/passwd", "gpu-z9", "hca-0000-12-02-0", "mlx5-0 "
  };
  private static final String[] QUANTITIES = {
    "1", "0", "-1", "1e12000000", "999999999999999999999999999Ei", "0.000000001n", "abc", "1e-9"
  };
  private static final byte[][] MALFORMED = {
    {(byte) 0xc3, 0x28}, {(byte) 0xff}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xe2, 0x28}
  };

  private final FuzzedDataProvider data;
  private final Random more;

  private HostileClaims(FuzzedDataProvider data) {
    this.data = data;
    this.more = new Random(data.consumeLong());
  }

  static Round draw(FuzzedDataProvider data) {
    return new HostileClaims(data).round();
  }

  /** The fuzzer's choice while its data lasts, then the seeded generator's. */
  private int pick(int min, int max) {
    return data.remainingBytes() > 0
        ? data.consumeInt(min, max)
        : (int) (min + Math.floorMod(more.nextLong(), (long) max - min + 1));
  }

  /** True about one time in {@code n}. */
  private boolean oneIn(int n) {
    return pick(1, n) == 1;
  }

  private <T> T of(T[] values) {
    return values[pick(0, values.length - 1)];
  }

  private Round round() {
    CdiState cdi = oneIn(3) ? of(CdiState.values()) : CdiState.DIRECTORY;
    int foreign = oneIn(3) ? pick(1, 3) : 0;
    int n = oneIn(8) ? pick(0, 40) : pick(1, 3);
    List<HostileClaim> claims = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      claims.add(claim(i, claims));
    }
    Tamper tamper = oneIn(3) ? of(Tamper.values()) : Tamper.NOTHING;
    boolean again = tamper != Tamper.NOTHING || oneIn(3);
    return new Round(cdi, foreign, claims, tamper, again, pick(0, claims.size()));
  }

  private HostileClaim claim(int index, List<HostileClaim> earlier) {
    String namespace = wire(oneIn(6) ? hostileName() : "team");
    String name = wire(oneIn(6) ? hostileName() : "claim-" + index);
    String uid;
    if (!earlier.isEmpty() && oneIn(10)) {
      uid = earlier.get(pick(0, earlier.size() - 1)).uid(); // the same claim twice in one call
    } else if (oneIn(10)) {
      uid = oneIn(4) ? "u".repeat(pick(129, 2_000)) : of(UIDS);
    } else {
      uid = String.format("0b0e5d7a-0000-4000-8000-%012d", pick(0, 999_999));
    }
    uid = wire(uid);
    Planted planted = oneIn(4) ? of(Planted.values()) : Planted.NOTHING;
    int kind = pick(0, 15);
    return switch (kind) {
      case 0 -> new HostileClaim(namespace, uid, name, planted, 404, notFound());
      case 1 ->
          new HostileClaim(
              namespace, uid, name, planted, of(new Integer[] {500, 403, 429}), junk());
      case 2 -> new HostileClaim(namespace, uid, name, planted, 200, junk());
      default ->
          new HostileClaim(
              namespace, uid, name, planted, 200, resourceClaim(namespace, name, uid, index == 0));
    };
  }

  /**
   * The text as the kubelet's message carries it: a protobuf string is UTF-8, so a lone surrogate
   * arrives as {@code ?} (the kubelet cannot send one).
   */
  private static String wire(String s) {
    return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
  }

  private String hostileName() {
    return oneIn(4) ? "n".repeat(pick(64, 2_000)) : of(NAMES);
  }

  private static byte[] notFound() {
    return ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"NotFound\","
            + "\"code\":404}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** Bytes that are not a claim: cut-short JSON, another kind, an array, invalid UTF-8. */
  private byte[] junk() {
    return switch (pick(0, 5)) {
      case 0 -> new byte[0];
      case 1 -> "{\"metadata\":{\"uid\":\"".getBytes(StandardCharsets.UTF_8);
      case 2 -> "[1,2,3]".getBytes(StandardCharsets.UTF_8);
      case 3 -> "{\"kind\":\"Pod\",\"apiVersion\":\"v1\"}".getBytes(StandardCharsets.UTF_8);
      case 4 -> "<html>bad gateway</html>".getBytes(StandardCharsets.UTF_8);
      default -> {
        byte[] text = new byte[pick(1, 64)];
        for (int i = 0; i < text.length; i++) {
          text[i] = (byte) pick(0, 255);
        }
        yield text;
      }
    };
  }

  /** A ResourceClaim with a hostile {@code status.allocation}, as JSON bytes. */
  private byte[] resourceClaim(String namespace, String name, String uid, boolean first) {
    Json j = new Json();
    j.raw("{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\"");
    if (!oneIn(20)) {
      j.raw(",\"metadata\":{\"namespace\":").string(namespace).raw(",\"name\":").string(name);
      if (!oneIn(20)) {
        j.raw(",\"uid\":").string(oneIn(8) ? "another-" + uid : uid);
      }
      j.raw("}");
    }
    j.raw(",\"spec\":{\"devices\":{\"requests\":[{\"name\":\"hcas\",\"exactly\":");
    j.raw("{\"deviceClassName\":\"tandem-hca\"}}]}}");
    switch (pick(0, 9)) {
      case 0 -> {}
      case 1 -> j.raw(",\"status\":{}");
      case 2 -> j.raw(",\"status\":{\"allocation\":{}}");
      case 3 -> j.raw(",\"status\":{\"allocation\":{\"devices\":{}}}");
      default -> {
        j.raw(",\"status\":{\"allocation\":{\"devices\":{\"results\":[");
        results(j, first);
        j.raw("]}}}");
      }
    }
    return j.raw("}").bytes();
  }

  /**
   * The allocation's results: a few, or (for the round's first claim only, to bound the round's
   * size) up to 100,000; each result maybe repeated (duplicate devices).
   */
  private void results(Json j, boolean first) {
    boolean huge = first && oneIn(10);
    int n = huge ? pick(0, 100_000) : pick(0, 4);
    int i = 0;
    while (i < n) {
      byte[] one = result(!huge);
      int times = oneIn(6) ? Math.min(pick(2, 1_000), n - i) : 1;
      for (int t = 0; t < times; t++, i++) {
        j.raw(i == 0 ? "" : ",").raw(one);
      }
    }
  }

  /** One result; {@code longNames}: whether a device name may be 200,000 characters. */
  private byte[] result(boolean longNames) {
    Json j = new Json();
    j.raw("{\"request\":").string(oneIn(8) ? of(new String[] {"", "hcas/x", "Hcas"}) : "hcas");
    if (!oneIn(20)) {
      j.raw(",\"driver\":").string(oneIn(5) ? of(OTHER_DRIVERS) : DRIVER);
    }
    if (!oneIn(20)) {
      j.raw(",\"pool\":").string(oneIn(6) ? of(OTHER_POOLS) : NODE);
    }
    if (!oneIn(20)) {
      j.raw(",\"device\":");
      switch (pick(0, 11)) {
        case 0 -> j.string(of(OTHER_DEVICES));
        case 1 -> j.string("mlx5-" + "0".repeat(longNames ? pick(1, 200_000) : pick(1, 100)));
        case 2 -> j.malformed(of(MALFORMED));
        case 3 -> j.string("mlx5-\ud800");
        default -> j.string(of(DEVICES));
      }
    }
    if (oneIn(4)) {
      j.raw(",\"shareID\":").string(oneIn(2) ? "2e3f4a5b-0000-4000-8000-000000000001" : "x/y");
      j.raw(",\"consumedCapacity\":{\"shares\":").string(of(QUANTITIES)).raw("}");
    }
    return j.raw("}").bytes();
  }

  /** JSON written as bytes, so that a value may hold bytes that are not UTF-8. */
  private static final class Json {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Json raw(String s) {
      out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
      return this;
    }

    /** A JSON string; control characters and lone surrogates as {@code \\u} escapes. */
    Json string(String s) {
      StringBuilder b = new StringBuilder(s.length() + 2).append('"');
      for (char c : s.toCharArray()) {
        if (c < 0x20 || c == '"' || c == '\\' || Character.isSurrogate(c)) {
          b.append(String.format("\\u%04x", (int) c));
        } else {
          b.append(c);
        }
      }
      return raw(b.append('"').toString());
    }

    /** A string holding a malformed UTF-8 sequence between ordinary characters. */
    Json malformed(byte[] sequence) {
      raw("\"mlx5-");
      out.writeBytes(sequence);
      return raw("0\"");
    }

    Json raw(byte[] bytes) {
      out.writeBytes(bytes);
      return this;
    }

    byte[] bytes() {
      return out.toByteArray();
    }
  }
}
