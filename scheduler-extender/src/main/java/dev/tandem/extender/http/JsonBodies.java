package dev.tandem.extender.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.io.IOException;

/**
 * Turns a request body into a JSON object, or a {@link BadRequest} saying what is wrong; owns the
 * limits every verb's body is read under (docs/extender.md, "Limits on a request").
 *
 * <p>Vert.x's own parser runs with Jackson's defaults (nesting 1,000, numbers of 1,000 characters,
 * strings of 20,000,000, names of 50,000; no limit on tokens), read once from system properties.
 * Every body is first read by {@link #JSON}, whose limits are explicit and tighter, so a body
 * Vert.x then parses (or a slice of it) is always within Vert.x's: no v1.Pod, Node or ExtenderArgs
 * comes near them, and the size of the whole is {@code --body-limit}'s.
 */
final class JsonBodies {

  /** Deeper than any v1.Pod or v1.Node in an ExtenderArgs (about 15 levels with managedFields). */
  static final int MAX_DEPTH = 64;

  /** A number's characters: an int64 has 19 digits. */
  static final int MAX_NUMBER = 100;

  /** A string value: the API server keeps all of an object's annotations under 256 KiB. */
  static final int MAX_STRING = 1024 * 1024;

  /** A key: a label key has at most 317 characters. */
  static final int MAX_NAME = 16 * 1024;

  static final JsonFactory JSON =
      JsonFactory.builder()
          .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(MAX_DEPTH)
                  .maxNumberLength(MAX_NUMBER)
                  .maxStringLength(MAX_STRING)
                  .maxNameLength(MAX_NAME)
                  .build())
          .build();

  private JsonBodies() {}

  static final String NULL_BODY = "expected a JSON object, got null";

  static JsonObject object(Buffer body) {
    requireContent(body);
    withinLimits(body);
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

  /** Reads every token of {@code body} under {@link #JSON}'s limits, building nothing. */
  private static void withinLimits(Buffer body) {
    try (JsonParser p = JSON.createParser(body.getBytes())) {
      while (p.nextToken() != null) {
        // only the limits are checked here; Vert.x's parser builds the object
      }
    } catch (IOException | RuntimeException e) {
      throw unreadable(e);
    }
  }

  /** The parser's failure, as the client is told it; a limit is named as one. */
  static BadRequest unreadable(Exception e) {
    if (e instanceof StreamConstraintsException) {
      return new BadRequest(
          "body is over a limit of the extender's JSON reader (docs/extender.md, \"Limits on a"
              + " request\"): "
              + firstLine(e.getMessage()));
    }
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
