package dev.tandem.deviceplugin.hostile;

import dev.tandem.kubelet.KubeletGrpcClient;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A gRPC call sent as raw bytes over HTTP/2 on a Unix socket, as the kubelet dials a plugin ({@code
 * :authority: localhost}), so that the body can be any frame at all; the answer is read without a
 * generated client's decoding. A streaming answer (ListAndWatch) is read up to its first message,
 * then the call is cancelled.
 */
public final class RawGrpc implements AutoCloseable {

  /**
   * What came back: the {@code grpc-status} (-1 when none came), its message, the response
   * messages' bytes, and whether the stream was reset or no answer came in time.
   */
  public record Answer(
      int status, String message, List<byte[]> messages, boolean reset, boolean timedOut) {

    @Override
    public String toString() {
      return timedOut
          ? "no answer in time"
          : reset
              ? "stream reset: " + message
              : "grpc-status "
                  + status
                  + " ("
                  + abbreviated(message)
                  + "), "
                  + messages.size()
                  + " messages";
    }
  }

  private final HttpClient http;

  public RawGrpc(Vertx vertx) {
    this.http = KubeletGrpcClient.http(vertx);
  }

  /** Sends {@code body} to {@code path} on {@code socket}; waits at most {@code within}. */
  public Answer call(Path socket, String path, byte[] body, boolean streaming, Duration within) {
    CompletableFuture<Answer> answer = new CompletableFuture<>();
    http.request(
            new RequestOptions()
                .setServer(SocketAddress.domainSocketAddress(socket.toString()))
                .setMethod(HttpMethod.POST)
                .setURI(path)
                .putHeader("content-type", "application/grpc")
                .putHeader("te", "trailers"))
        .onFailure(e -> answer.complete(reset(e)))
        .onSuccess(
            req -> {
              req.exceptionHandler(e -> answer.complete(reset(e)));
              req.response()
                  .onSuccess(resp -> read(req, resp, streaming, answer))
                  .onFailure(e -> answer.complete(reset(e)));
              req.end(Buffer.buffer(body));
            });
    try {
      return answer.get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return new Answer(-1, "", List.of(), false, true);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  private static void read(
      HttpClientRequest req,
      HttpClientResponse resp,
      boolean streaming,
      CompletableFuture<Answer> answer) {
    Buffer body = Buffer.buffer();
    resp.exceptionHandler(e -> answer.complete(reset(e)));
    resp.handler(
        chunk -> {
          body.appendBuffer(chunk);
          List<byte[]> messages = messages(body);
          if (streaming && !messages.isEmpty()) {
            answer.complete(new Answer(0, "", messages, false, false));
            req.reset();
          }
        });
    resp.endHandler(
        v -> {
          String status = header(resp, "grpc-status");
          String message = header(resp, "grpc-message");
          answer.complete(
              new Answer(
                  status == null ? -1 : Integer.parseInt(status),
                  message == null ? "" : URLDecoder.decode(message, StandardCharsets.UTF_8),
                  messages(body),
                  false,
                  false));
        });
  }

  /** A trailer, or a header of a trailers-only answer. */
  private static String header(HttpClientResponse resp, String name) {
    String t = resp.trailers().get(name);
    return t != null ? t : resp.getHeader(name);
  }

  /** The whole length-prefixed messages in {@code body}. */
  private static List<byte[]> messages(Buffer body) {
    List<byte[]> out = new ArrayList<>();
    int at = 0;
    while (at + 5 <= body.length()) {
      int length = body.getInt(at + 1);
      if (length < 0 || at + 5L + length > body.length()) {
        break;
      }
      out.add(body.getBytes(at + 5, at + 5 + length));
      at += 5 + length;
    }
    return out;
  }

  private static Answer reset(Throwable e) {
    return new Answer(-1, String.valueOf(e), List.of(), true, false);
  }

  private static String abbreviated(String s) {
    return s.length() <= 300 ? s : s.substring(0, 300) + "… (" + s.length() + " characters)";
  }

  @Override
  public void close() {
    http.close();
  }
}
