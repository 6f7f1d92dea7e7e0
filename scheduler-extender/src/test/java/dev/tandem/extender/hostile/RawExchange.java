package dev.tandem.extender.hostile;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * One HTTP/1.1 exchange over a raw socket to localhost: the request's bytes exactly as given (so
 * framing and headers can be anything), then the first final response, read within a deadline.
 * Interim {@code 100 Continue} answers are skipped.
 */
public final class RawExchange {

  /** What came back: a status and body, nothing (the server closed), or nothing in time. */
  public record Answer(int status, String body, boolean closed, boolean timedOut) {

    public boolean serverError() {
      return status >= 500;
    }

    @Override
    public String toString() {
      if (timedOut) {
        return "no answer in time";
      }
      return closed ? "closed without an answer" : status + " " + body;
    }
  }

  private RawExchange() {}

  /**
   * Sends {@code request} to {@code port}; when {@code halfClose}, shuts the socket's output after
   * it (the client has nothing more to send), as a client does that gives up on a body.
   */
  public static Answer send(int port, byte[] request, boolean halfClose, Duration deadline)
      throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), (int) deadline.toMillis());
      s.setSoTimeout((int) deadline.toMillis());
      OutputStream out = s.getOutputStream();
      try {
        out.write(request);
        out.flush();
        if (halfClose) {
          s.shutdownOutput();
        }
      } catch (IOException e) {
        // the server may answer and close before the whole request is written (413, 431)
      }
      try {
        // buffered: an answer of megabytes (a filter of 27,000 nodes) read a byte per system call
        // took longer than the deadline itself
        return read(
            new BufferedInputStream(s.getInputStream()), deadline.toNanos() + System.nanoTime());
      } catch (SocketTimeoutException e) {
        return new Answer(0, "", false, true);
      }
    }
  }

  /** A GET of {@code path}, with Connection: close. */
  public static Answer get(int port, String path, Duration deadline) throws IOException {
    String request = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    return send(port, request.getBytes(StandardCharsets.US_ASCII), false, deadline);
  }

  private static Answer read(InputStream in, long until) throws IOException {
    while (true) {
      String head = head(in, until);
      if (head == null) {
        return new Answer(0, "", true, false);
      }
      int status = Integer.parseInt(head.substring(9, 12));
      if (status == 100) {
        continue;
      }
      return new Answer(status, body(in, head, until), false, false);
    }
  }

  /** The status line and headers, or null when the connection ends first. */
  private static String head(InputStream in, long until) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int c = readByte(in, until);
      if (c < 0) {
        return null;
      }
      b.write(c);
      matched = (c == '\r' || c == '\n') && "\r\n\r\n".charAt(matched) == c ? matched + 1 : 0;
    }
    return b.toString(StandardCharsets.ISO_8859_1);
  }

  private static String body(InputStream in, String head, long until) throws IOException {
    String lower = head.toLowerCase(Locale.ROOT);
    int at = lower.indexOf("\r\ncontent-length:");
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    if (at >= 0) {
      int end = lower.indexOf("\r\n", at + 2);
      long length = Long.parseLong(lower.substring(at + 17, end).trim());
      for (long i = 0; i < length; i++) {
        int c = readByte(in, until);
        if (c < 0) {
          break;
        }
        b.write(c);
      }
    } else if (lower.contains("\r\ntransfer-encoding: chunked")) {
      String tail = "0\r\n\r\n";
      String recent = ""; // the last bytes read, as long as the tail: not the whole body each time
      while (!recent.endsWith(tail)) {
        int c = readByte(in, until);
        if (c < 0) {
          break;
        }
        b.write(c);
        recent += (char) c;
        recent = recent.substring(Math.max(0, recent.length() - tail.length()));
      }
    }
    if (lower.contains("\r\ncontent-encoding: gzip")) {
      try (InputStream z = new GZIPInputStream(new ByteArrayInputStream(b.toByteArray()))) {
        return new String(z.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "(gzip that does not decode: " + e.getMessage() + ")";
      }
    }
    return b.toString(StandardCharsets.UTF_8);
  }

  private static int readByte(InputStream in, long until) throws IOException {
    if (System.nanoTime() > until) {
      throw new SocketTimeoutException("the answer did not come in time");
    }
    return in.read();
  }
}
