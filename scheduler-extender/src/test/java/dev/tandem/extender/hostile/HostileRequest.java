package dev.tandem.extender.hostile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;

/**
 * One request to a verb as bytes on the wire, built from choices about its framing and headers:
 * what an outside fuzzer varies beyond the body. Null header values leave the header out.
 *
 * @param path the verb's path, e.g. {@code /scheduler/filter}
 * @param expect the {@code Expect} value
 * @param framing how the body's length is told
 * @param contentEncoding the {@code Content-Encoding} value
 * @param gzipBody whether the body is sent gzipped
 * @param connection the {@code Connection} value
 * @param padding length of one extra header's value (oversized headers)
 * @param body the body before any coding
 */
public record HostileRequest(
    String path,
    String expect,
    Framing framing,
    String contentEncoding,
    boolean gzipBody,
    String connection,
    int padding,
    byte[] body) {

  /** How the request says where its body ends (RFC 9112 §6). */
  public enum Framing {
    /** {@code Content-Length} equal to the body: what kube-scheduler's Go client sends. */
    CONTENT_LENGTH,
    /** {@code Transfer-Encoding: chunked}. */
    CHUNKED,
    /** A {@code Content-Length} under the body's: the rest reads as a next request. */
    SHORT_LENGTH,
    /** A {@code Content-Length} over the body's, then the client closes its side. */
    LONG_LENGTH,
    /** Both headers (RFC 9112 §6.3: chunked wins, or 400). */
    LENGTH_AND_CHUNKED,
    /** Neither header: the request has no body, and the bytes after it read as a next request. */
    NO_LENGTH,
    /** A transfer coding the server does not know, without chunked (RFC 9112 §6.3: 400). */
    UNKNOWN_CODING
  }

  /** A request as kube-scheduler sends it. */
  public static HostileRequest plain(String path, String body) {
    return new HostileRequest(
        path,
        null,
        Framing.CONTENT_LENGTH,
        null,
        false,
        null,
        0,
        body.getBytes(StandardCharsets.UTF_8));
  }

  public HostileRequest withExpect(String value) {
    return new HostileRequest(
        path, value, framing, contentEncoding, gzipBody, connection, padding, body);
  }

  public HostileRequest withFraming(Framing value) {
    return new HostileRequest(
        path, expect, value, contentEncoding, gzipBody, connection, padding, body);
  }

  public HostileRequest withEncoding(String value, boolean gzip) {
    return new HostileRequest(path, expect, framing, value, gzip, connection, padding, body);
  }

  public HostileRequest withPadding(int value) {
    return new HostileRequest(
        path, expect, framing, contentEncoding, gzipBody, connection, value, body);
  }

  /** Whether the client closes its side after sending (it has promised more than it sent). */
  public boolean halfClose() {
    return framing == Framing.LONG_LENGTH;
  }

  /** The request's bytes. */
  public byte[] bytes() {
    byte[] payload = gzipBody ? gzip(body) : body;
    StringBuilder head = new StringBuilder();
    head.append("POST ").append(path).append(" HTTP/1.1\r\n");
    head.append("Host: localhost\r\nUser-Agent: Go-http-client/1.1\r\n");
    head.append("Content-Type: application/json\r\nAccept-Encoding: gzip\r\n");
    header(head, "Expect", expect);
    header(head, "Connection", connection);
    header(head, "Content-Encoding", contentEncoding);
    if (padding > 0) {
      header(head, "X-Padding", "p".repeat(padding));
    }
    switch (framing) {
      case CONTENT_LENGTH, LONG_LENGTH, SHORT_LENGTH -> {
        long declared =
            switch (framing) {
              case LONG_LENGTH -> payload.length + 10L;
              case SHORT_LENGTH -> payload.length / 2;
              default -> payload.length;
            };
        header(head, "Content-Length", Long.toString(declared));
      }
      case CHUNKED -> header(head, "Transfer-Encoding", "chunked");
      case LENGTH_AND_CHUNKED -> {
        header(head, "Content-Length", Integer.toString(payload.length));
        header(head, "Transfer-Encoding", "chunked");
      }
      case UNKNOWN_CODING -> header(head, "Transfer-Encoding", "zz-unknown");
      case NO_LENGTH -> {}
    }
    head.append("\r\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream(payload.length + head.length() + 64);
    out.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
    if (framing == Framing.CHUNKED || framing == Framing.LENGTH_AND_CHUNKED) {
      chunked(out, payload);
    } else {
      out.writeBytes(payload);
    }
    return out.toByteArray();
  }

  private static void header(StringBuilder head, String name, String value) {
    if (value != null) {
      head.append(name).append(": ").append(value).append("\r\n");
    }
  }

  private static void chunked(ByteArrayOutputStream out, byte[] payload) {
    for (int at = 0; at < payload.length; at += 4096) {
      int n = Math.min(4096, payload.length - at);
      out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(payload, at, n);
      out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] gzip(byte[] body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  @Override
  public String toString() {
    return "POST "
        + path
        + " expect="
        + expect
        + " framing="
        + framing
        + " encoding="
        + contentEncoding
        + (gzipBody ? " (gzipped)" : "")
        + " connection="
        + connection
        + " padding="
        + padding
        + " body="
        + body.length
        + " bytes: "
        + new String(body, 0, Math.min(body.length, 300), StandardCharsets.UTF_8);
  }
}
