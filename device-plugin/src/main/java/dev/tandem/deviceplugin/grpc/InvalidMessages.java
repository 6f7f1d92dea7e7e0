package dev.tandem.deviceplugin.grpc;

import io.vertx.grpc.common.CodecException;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.MessageSizeOverflowException;
import io.vertx.grpc.server.GrpcServerRequest;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a request message for the plugin's gRPC server, answering one it cannot read with a status
 * that says why, for the kubelet's log: RESOURCE_EXHAUSTED when it is larger than {@link
 * #MAX_MESSAGE_SIZE}, INVALID_ARGUMENT when it does not decode (a string that is not UTF-8, a field
 * cut short), UNIMPLEMENTED when it is compressed (the kubelet never compresses). Left to the gRPC
 * library, the first is a RESOURCE_EXHAUSTED without a message and the second a cancelled stream
 * without any status.
 */
final class InvalidMessages {

  private static final Logger LOG = LoggerFactory.getLogger(InvalidMessages.class);

  /**
   * The largest request message read: grpc-go's default for a server (the kubelet's own servers),
   * and 16 times the gRPC library's default of 256 KiB, which the kubelet's largest call exceeds on
   * a big node (GetPreferredAllocation listing every free device: about 280 KB for 16 HCAs of 1,000
   * shared slots).
   */
  static final long MAX_MESSAGE_SIZE = 4L * 1024 * 1024;

  private InvalidMessages() {}

  /**
   * How long a call may wait for its one message: the kubelet sends it with the call, a few MiB at
   * most over a local socket. After that the call is answered, so that no stream stays open on a
   * frame that never completes (cut short, or flagged compressed without {@code grpc-encoding},
   * which the gRPC library leaves unanswered).
   */
  static final Duration MESSAGE_WITHIN = Duration.ofSeconds(5);

  /** Answers a call whose message did not come whole within {@link #MESSAGE_WITHIN}. */
  static void refuseMissing(GrpcServerRequest<?, ?> request, String socket) {
    refuse(
        request,
        GrpcStatus.INVALID_ARGUMENT,
        socket,
        request.methodName()
            + " sent no whole message within "
            + MESSAGE_WITHIN.toSeconds()
            + " s (a frame cut short, or flagged compressed without grpc-encoding); send the"
            + " uncompressed message with the call");
  }

  /**
   * Answers a message of {@code request} larger than {@link #MAX_MESSAGE_SIZE}; {@code answered}
   * runs first.
   */
  static void refuseOversize(GrpcServerRequest<?, ?> request, String socket, Runnable answered) {
    request.invalidMessageHandler(
        e -> {
          answered.run();
          long size = e instanceof MessageSizeOverflowException o ? o.messageSize() : -1;
          refuse(
              request,
              GrpcStatus.RESOURCE_EXHAUSTED,
              socket,
              request.methodName()
                  + " message of "
                  + size
                  + " bytes is larger than the plugin reads ("
                  + MAX_MESSAGE_SIZE
                  + " bytes); ask for fewer devices in one call");
        });
  }

  /** The message decoded; empty when it could not be, and the call was answered. */
  static <I> Optional<I> decode(
      GrpcServerRequest<I, ?> request,
      GrpcMessageDecoder<I> decoder,
      GrpcMessage message,
      String socket) {
    if (!"identity".equals(message.encoding())) {
      refuse(
          request,
          GrpcStatus.UNIMPLEMENTED,
          socket,
          request.methodName()
              + " message compressed with "
              + message.encoding()
              + ": the plugin reads uncompressed messages only");
      return Optional.empty();
    }
    try {
      return Optional.of(decoder.decode(message));
    } catch (CodecException e) {
      refuse(
          request,
          GrpcStatus.INVALID_ARGUMENT,
          socket,
          request.methodName()
              + " message is not a valid v1beta1 device-plugin message: "
              + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
      return Optional.empty();
    }
  }

  private static void refuse(
      GrpcServerRequest<?, ?> request, GrpcStatus status, String socket, String why) {
    LOG.warn("refused a request on {}: {}", socket, why);
    try {
      request.response().status(status).statusMessage(why).end();
    } catch (IllegalStateException alreadyAnswered) {
      LOG.debug("the call on {} was answered already: {}", socket, alreadyAnswered.getMessage());
    }
  }
}
