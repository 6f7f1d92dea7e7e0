package dev.tandem.benchmarks.extender;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tandem.extender.http.ExtenderArgs;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.NodeDirectory;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The floor: a verb that only decodes the ExtenderArgs body, with the extender's own decoder
 * ({@link ExtenderArgs#decode}: the pod as a JSON object, every node name as a string, since an
 * answer must name them), and passes every node, answered as an uncompressed ExtenderFilterResult
 * (as the extender answers filter and prioritize). What the extender costs beyond it is the cost of
 * Tandem's own work.
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
    CandidateNodes names = ExtenderArgs.decode(rc.body().buffer(), NodeDirectory.empty()).candidates();
    // uncompressed, as the extender answers its scheduler verbs
    rc.response().putHeader("Content-Type", "application/json")
        .putHeader(HttpHeaders.CONTENT_ENCODING, HttpHeaders.IDENTITY).end(allPass(names));
  }

  private static Buffer allPass(CandidateNodes names) {
    ByteArrayOutputStream out = new ByteArrayOutputStream((int) (160 + names.nameChars() + names.size() * 3L));
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeNullField("Nodes");
      g.writeArrayFieldStart("NodeNames");
      for (int i = 0; i < names.size(); i++) {
        g.writeString(names.name(i));
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
