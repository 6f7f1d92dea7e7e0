package dev.tandem.benchmarks.extender;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The floor: a verb that only decodes the ExtenderArgs body (into a Vert.x JSON tree, as the
 * extender does) and passes every node, answered as an uncompressed ExtenderFilterResult (as the
 * extender answers filter and prioritize). What the extender
 * costs beyond it is the cost of Tandem's own work.
 */
final class FloorVerb {

  static final String PATH = "/floor/filter";
  private static final JsonFactory JSON = new JsonFactory();

  private FloorVerb() {}

  /** Adds the floor verb to the extender's router, so both are served by one server. */
  static void mount(Router router, long bodyLimit) {
    router.post(PATH).order(-1).handler(BodyHandler.create(false).setBodyLimit(bodyLimit))
        .handler(FloorVerb::handle);
  }

  private static void handle(RoutingContext rc) {
    JsonObject args = rc.body().buffer().toJsonObject();
    if (!(args.getValue("Pod") instanceof JsonObject) || !(args.getValue("NodeNames") instanceof JsonArray names)) {
      rc.response().setStatusCode(400).end("ExtenderArgs needs Pod and NodeNames");
      return;
    }
    // uncompressed, as the extender answers its scheduler verbs
    rc.response().putHeader("Content-Type", "application/json")
        .putHeader(HttpHeaders.CONTENT_ENCODING, HttpHeaders.IDENTITY).end(allPass(names));
  }

  private static Buffer allPass(JsonArray names) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + names.size() * 24);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeNullField("Nodes");
      g.writeArrayFieldStart("NodeNames");
      for (int i = 0; i < names.size(); i++) {
        g.writeString(names.getString(i));
      }
      g.writeEndArray();
      g.writeObjectFieldStart("FailedNodes");
      g.writeEndObject();
      g.writeObjectFieldStart("FailedAndUnresolvableNodes");
      g.writeEndObject();
      g.writeStringField("Error", "");
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Buffer.buffer(out.toByteArray());
  }
}
