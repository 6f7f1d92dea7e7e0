package dev.tandem.extender.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tandem.extender.scheduling.FilterVerdict;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/** Encodes the extender's answers with the Go field names kube-scheduler decodes. */
final class Replies {

  private static final JsonFactory JSON = new JsonFactory();

  private Replies() {}

  private interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private static Buffer encode(int sizeHint, Body body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(sizeHint);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Buffer.buffer(out.toByteArray());
  }

  /** ExtenderFilterResult; answers in the mode of the request (names or Node objects). */
  static Buffer filter(ExtenderArgs args, FilterVerdict v) {
    return encode(64 + args.names().size() * 24, g -> {
      g.writeStartObject();
      if (args.nodes() == null) {
        g.writeNullField("Nodes");
        g.writeArrayFieldStart("NodeNames");
        for (int i = 0; i < args.names().size(); i++) {
          if (v.passed()[i]) {
            g.writeString(args.names().get(i));
          }
        }
        g.writeEndArray();
      } else {
        g.writeObjectFieldStart("Nodes");
        g.writeObjectFieldStart("metadata");
        g.writeEndObject();
        g.writeArrayFieldStart("items");
        for (int i = 0; i < args.nodes().size(); i++) {
          if (v.passed()[i]) {
            raw(g, args.nodes().get(i));
          }
        }
        g.writeEndArray();
        g.writeEndObject();
        g.writeNullField("NodeNames");
      }
      map(g, "FailedNodes", v.failed());
      map(g, "FailedAndUnresolvableNodes", v.unresolvable());
      g.writeStringField("Error", "");
      g.writeEndObject();
    });
  }

  /** ExtenderFilterResult carrying only an error (kube-scheduler fails the attempt). */
  static Buffer filterError(String error) {
    return encode(128, g -> {
      g.writeStartObject();
      g.writeNullField("Nodes");
      g.writeNullField("NodeNames");
      g.writeNullField("FailedNodes");
      g.writeNullField("FailedAndUnresolvableNodes");
      g.writeStringField("Error", error);
      g.writeEndObject();
    });
  }

  /** HostPriorityList: a bare array of {Host, Score}. */
  static Buffer priorities(List<String> hosts, int[] scores) {
    return encode(16 + hosts.size() * 40, g -> {
      g.writeStartArray();
      for (int i = 0; i < scores.length; i++) {
        g.writeStartObject();
        g.writeStringField("Host", hosts.get(i));
        g.writeNumberField("Score", scores[i]);
        g.writeEndObject();
      }
      g.writeEndArray();
    });
  }

  /** ExtenderBindingResult. */
  static Buffer binding(String error) {
    return encode(32, g -> {
      g.writeStartObject();
      g.writeStringField("Error", error == null ? "" : error);
      g.writeEndObject();
    });
  }

  static Buffer error(String message) {
    return new JsonObject().put("error", message).toBuffer();
  }

  private static void map(JsonGenerator g, String field, Map<String, String> m) throws IOException {
    g.writeObjectFieldStart(field);
    for (Map.Entry<String, String> e : m.entrySet()) {
      g.writeStringField(e.getKey(), e.getValue());
    }
    g.writeEndObject();
  }

  private static void raw(JsonGenerator g, JsonObject node) throws IOException {
    g.writeRawValue(node.encode());
  }
}
