package dev.tandem.deviceplugin.hostile;

import java.nio.ByteBuffer;

/**
 * One call of the kubelet to a plugin socket, as {@link HostileKubelet} drew it: the method, which
 * of the plugin's two resources (joint mode serves {@code rdma/hca} and {@code nvidia.com/gpu}),
 * the message's protobuf encoding and the gRPC frame around it.
 */
public record HostileCall(Method method, boolean gpu, byte[] message, Framing framing) {

  /** The five methods of {@code v1beta1.DevicePlugin}. */
  public enum Method {
    ALLOCATE("Allocate"),
    PREFERRED("GetPreferredAllocation"),
    PRE_START("PreStartContainer"),
    OPTIONS("GetDevicePluginOptions"),
    LIST_AND_WATCH("ListAndWatch");

    private final String rpc;

    Method(String rpc) {
      this.rpc = rpc;
    }

    public String path() {
      return "/v1beta1.DevicePlugin/" + rpc;
    }
  }

  /** The gRPC length-prefixed frame(s) around the message. */
  public enum Framing {
    /** One frame, as a kubelet sends it. */
    WHOLE,
    /** The length says more than the stream carries before it ends. */
    CUT_SHORT,
    /** The length says less than follows: the rest is the start of a second frame. */
    LENGTH_SHORT,
    /** The compressed flag set, with no {@code grpc-encoding}. */
    COMPRESSED_FLAG,
    /** Two messages on a unary call. */
    TWICE,
    /** No frame at all: the stream ends empty. */
    EMPTY,
    /** A length of 2 GiB − 1 in front of the message. */
    HUGE_LENGTH,
    /** Only the first three bytes of the five-byte prefix. */
    HALF_PREFIX
  }

  /** Whether the client ended the stream without the whole of what it announced. */
  public boolean cutShort() {
    return framing == Framing.CUT_SHORT
        || framing == Framing.HUGE_LENGTH
        || framing == Framing.HALF_PREFIX
        || framing == Framing.LENGTH_SHORT && message.length > 0;
  }

  /** The request body: the message in its frame(s). */
  public byte[] body() {
    return switch (framing) {
      case WHOLE -> frame(0, message.length, message);
      case CUT_SHORT -> frame(0, message.length + 1 + message.length / 2, message);
      case LENGTH_SHORT -> frame(0, Math.max(0, message.length - 1), message);
      case COMPRESSED_FLAG -> frame(1, message.length, message);
      case TWICE -> concat(frame(0, message.length, message), frame(0, message.length, message));
      case EMPTY -> new byte[0];
      case HUGE_LENGTH -> frame(0, Integer.MAX_VALUE, message);
      case HALF_PREFIX -> new byte[] {0, 0, 0};
    };
  }

  private static byte[] frame(int flag, int length, byte[] message) {
    return ByteBuffer.allocate(5 + message.length)
        .put((byte) flag)
        .putInt(length)
        .put(message)
        .array();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    return ByteBuffer.allocate(a.length + b.length).put(a).put(b).array();
  }

  @Override
  public String toString() {
    return method.rpc
        + (gpu ? " (GPU socket)" : " (HCA socket)")
        + ", "
        + message.length
        + " bytes of message, framing "
        + framing;
  }
}
