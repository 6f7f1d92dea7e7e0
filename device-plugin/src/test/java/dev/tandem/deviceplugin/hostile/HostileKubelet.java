package dev.tandem.deviceplugin.hostile;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.tandem.deviceplugin.hostile.HostileCall.Framing;
import dev.tandem.deviceplugin.hostile.HostileCall.Method;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Draws a call of the kubelet to one of the plugin's sockets from a fuzzer's choices, knowing the
 * v1beta1 DevicePlugin messages rather than flipping bytes: device id lists that are empty, huge
 * (tens of thousands), repeated, unknown, of another mode's form (shared slots, VFs, GPU replicas
 * and MIG devices, bus ids: tandem-api's {@code DeviceIds}), over-long or not UTF-8; must-include
 * ids outside the available ones, allocation sizes at the int32 extremes, thousands of container
 * requests, unknown fields; and the gRPC frame around the message (cut short, a length that lies, a
 * compressed flag without an encoding, two messages on a unary call, a length past the server's
 * limit, bytes that are no message). The protobuf encoding is written field by field so that it can
 * carry what a generated builder refuses (invalid UTF-8). The choices are {@link InputChoices}.
 */
public final class HostileKubelet {

  /** Ids of forms the plugin never offers in this mode, and ids close to its own. */
  private static final String[] FOREIGN = {
    "mlx5_0-slot-7",
    "mlx5_0-slot-",
    "mlx5_0-slot-99999999999999999999",
    "0000:3b:00.2",
    "0000:17:00.0",
    "ffff:ff:1f.7",
    "GPU-8e1c2f1a-0000-0000-0000-000000000000::3",
    "GPU-::",
    "MIG-GPU-8e1c2f1a-0000-0000-0000-000000000000/1/0",
    "MIG-5b6f0c2e-0000-0000-0000-000000000000",
    "MIG-5b6f0c2e-0000-0000-0000-000000000000::2",
    "mlx5_99",
    "mlx5_",
    "MLX5_0",
    " mlx5_0",
    "mlx5_0\n",
    "",
    "../../etc/passwd",
    "mlx5_0\u0000",
    "\u202emlx5_0",
    "\uD83D\uDE00"
  };

  /** Byte sequences that are not UTF-8: a lone continuation, overlong, a surrogate, 0xFF, cut. */
  private static final byte[][] NOT_UTF8 = {
    {(byte) 0x80},
    {(byte) 0xC0, (byte) 0x80},
    {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
    {(byte) 0xFF},
    {(byte) 0xE2, (byte) 0x82},
    {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}
  };

  private static final int[] SIZES = {
    Integer.MIN_VALUE, -1, 0, 1, 2, 3, 4, 8, 64, 100_000, Integer.MAX_VALUE
  };

  private final InputChoices c;
  private final List<String> own;

  /** What the ids of one call may add up to: the grammar's memory, not the server's limit. */
  private long bytesLeft = 6L << 20;

  private HostileKubelet(FuzzedDataProvider d, List<String> own) {
    this.c = InputChoices.of(d);
    this.own = own;
  }

  /**
   * A call to one of the plugin's sockets.
   *
   * @param own the ids the plugin offers on both its resources, the base of most drawn ids
   */
  public static HostileCall draw(FuzzedDataProvider d, List<String> own) {
    return new HostileKubelet(d, own).call();
  }

  private int pick(int min, int max) {
    return c.pick(min, max);
  }

  private boolean chance(int outOf) {
    return c.chance(outOf);
  }

  private HostileCall call() {
    Method method = Method.values()[pick(0, Method.values().length - 1)];
    boolean gpu = pick(0, 1) == 1;
    byte[] message =
        switch (method) {
          case ALLOCATE -> allocate();
          case PREFERRED -> preferred();
          case PRE_START -> idList(1);
          case OPTIONS, LIST_AND_WATCH -> unknownFields();
        };
    if (chance(16)) {
      message = garbage();
    }
    Framing framing = chance(3) ? Framing.values()[pick(0, Framing.values().length - 1)] : null;
    return new HostileCall(method, gpu, message, framing == null ? Framing.WHOLE : framing);
  }

  private byte[] allocate() {
    return containers(n -> idList(1));
  }

  private byte[] preferred() {
    return containers(
        n -> {
          Bytes b = new Bytes();
          List<byte[]> available = ids();
          for (byte[] id : available) {
            b.string(1, id);
          }
          List<byte[]> must = chance(2) ? subset(available) : ids();
          for (byte[] id : must) {
            b.string(2, id);
          }
          int size = chance(2) ? SIZES[pick(0, SIZES.length - 1)] : pick(0, 8);
          if (size != 0 || chance(2)) {
            b.int32(3, size);
          }
          return b.bytes();
        });
  }

  private interface Container {
    byte[] encode(int n);
  }

  /** Field 1 repeated: the container requests of Allocate and GetPreferredAllocation. */
  private byte[] containers(Container c) {
    int n = chance(8) ? pick(0, 10_000) : pick(0, 3);
    Bytes b = new Bytes();
    byte[] first = null;
    for (int i = 0; i < n && bytesLeft > 0; i++) {
      byte[] one = first != null && chance(2) ? first : c.encode(i);
      first = first == null ? one : first;
      bytesLeft -= one == first ? one.length : 0;
      b.message(1, one);
    }
    return b.bytes();
  }

  private byte[] idList(int field) {
    Bytes b = new Bytes();
    for (byte[] id : ids()) {
      b.string(field, id);
    }
    return b.bytes();
  }

  /** Empty, a few, a huge list, or one id repeated. */
  private List<byte[]> ids() {
    int n =
        switch (pick(0, 3)) {
          case 0 -> 0;
          case 1 -> pick(1, 8);
          case 2 -> pick(1_000, 60_000);
          default -> pick(2, 20);
        };
    List<byte[]> out = new ArrayList<>(n);
    byte[] repeated = chance(4) ? id() : null;
    for (int i = 0; i < n && bytesLeft > 0; i++) {
      byte[] id = repeated != null ? repeated : id();
      bytesLeft -= id.length + 2;
      out.add(id);
    }
    return out;
  }

  private List<byte[]> subset(List<byte[]> available) {
    List<byte[]> out = new ArrayList<>();
    for (byte[] id : available) {
      if (out.size() < 16 && chance(2)) {
        out.add(id);
      }
    }
    return out;
  }

  private byte[] id() {
    return switch (pick(0, 7)) {
      case 0, 1, 2 -> utf8(own.get(pick(0, own.size() - 1)));
      case 3 -> utf8(FOREIGN[pick(0, FOREIGN.length - 1)]);
      case 4 -> utf8(own.get(pick(0, own.size() - 1)) + "-slot-" + pick(-1, 1_000));
      case 5 -> utf8("mlx5_" + "9".repeat(pick(1, 200_000)));
      case 6 -> notUtf8(own.get(pick(0, own.size() - 1)));
      default -> utf8("n" + pick(0, Integer.MAX_VALUE));
    };
  }

  private byte[] notUtf8(String around) {
    byte[] bad = NOT_UTF8[pick(0, NOT_UTF8.length - 1)];
    byte[] text = utf8(around);
    int at = pick(0, text.length);
    byte[] out = new byte[text.length + bad.length];
    System.arraycopy(text, 0, out, 0, at);
    System.arraycopy(bad, 0, out, at, bad.length);
    System.arraycopy(text, at, out, at + bad.length, text.length - at);
    return out;
  }

  /** Empty's encoding, perhaps with fields a newer kubelet might send. */
  private byte[] unknownFields() {
    Bytes b = new Bytes();
    int n = pick(0, 3);
    for (int i = 0; i < n; i++) {
      b.string(pick(1, 536_870_911), id());
    }
    return b.bytes();
  }

  /** Bytes that are rarely a message: a varint that never ends, a length past the end, noise. */
  private byte[] garbage() {
    return switch (pick(0, 3)) {
      case 0 -> new byte[] {0x0a, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f};
      case 1 -> new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80};
      case 2 -> nested(pick(1, 200_000));
      default -> {
        byte[] b = new byte[pick(0, 64)];
        c.nextBytes(b);
        yield b;
      }
    };
  }

  /** A message inside a message, {@code depth} deep, in field 1 (protobuf's recursion limit). */
  private static byte[] nested(int depth) {
    byte[] at = new byte[0];
    for (int i = 0; i < depth && at.length < 4 << 20; i++) {
      Bytes b = new Bytes();
      b.message(1, at);
      at = b.bytes();
    }
    return at;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A protobuf encoding written field by field, without a generated builder's checks. */
  private static final class Bytes {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final CodedOutputStream coded = CodedOutputStream.newInstance(out);

    void string(int field, byte[] value) {
      run(() -> coded.writeBytes(field, ByteString.copyFrom(value)));
    }

    void message(int field, byte[] value) {
      string(field, value);
    }

    void int32(int field, int value) {
      run(() -> coded.writeInt32(field, value));
    }

    byte[] bytes() {
      run(coded::flush);
      return out.toByteArray();
    }

    private interface Write {
      void run() throws IOException;
    }

    private static void run(Write w) {
      try {
        w.run();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
