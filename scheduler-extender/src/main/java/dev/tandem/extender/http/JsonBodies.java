package dev.tandem.extender.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/** Turns a request body into a JSON object, or a {@link BadRequest} saying what is wrong. */
final class JsonBodies {

  private JsonBodies() {}

  static final String NULL_BODY = "expected a JSON object, got null";

  static JsonObject object(Buffer body) {
    requireContent(body);
    try {
      JsonObject o = body.toJsonObject();
      if (o == null) {
        throw new BadRequest(NULL_BODY);
      }
      return o;
    } catch (BadRequest e) {
      throw e;
    } catch (RuntimeException e) {
      throw unreadable(e);
    }
  }

  static void requireContent(Buffer body) {
    if (body == null || body.length() == 0) {
      throw new BadRequest("empty body; expected a JSON object");
    }
  }

  /** The parser's failure, as the client is told it. */
  static BadRequest unreadable(Exception e) {
    return new BadRequest("body is not a JSON object: " + firstLine(e.getMessage()));
  }

  /** The first line of a parser's message, at most 200 characters. */
  private static String firstLine(String s) {
    if (s == null) {
      return "unreadable";
    }
    int nl = s.indexOf('\n');
    String line = nl < 0 ? s : s.substring(0, nl);
    return line.length() > 200 ? line.substring(0, 200) + "…" : line;
  }
}
