package dev.tandem.benchmarks.extender;

import dev.tandem.extender.http.ExtenderArgs;
import dev.tandem.extender.http.Replies;
import dev.tandem.extender.state.NodeDirectory;
import dev.tandem.extender.verbs.FilterVerdict;
import dev.tandem.extender.verbs.Outcome;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The floor: a verb that only decodes the ExtenderArgs body and passes every node, with the
 * extender's own decoder ({@link ExtenderArgs#decode}: the pod as a JSON object, every node name as
 * a string, since an answer must name them and the floor knows no nodes) and its own writer ({@link
 * Replies#filter}, apart from the extender's own), answered uncompressed as the extender answers
 * filter and prioritize. What the extender costs beyond it is the cost of Tandem's own work.
 */
final class FloorVerb {

  static final String PATH = "/floor/filter";

  private static final Replies REPLIES = new Replies();

  private FloorVerb() {}

  /** Adds the floor verb to the extender's router, so both are served by one server. */
  static void mount(Router router, long bodyLimit) {
    router
        .post(PATH)
        .order(-1)
        .handler(BodyHandler.create(false).setBodyLimit(bodyLimit))
        .handler(FloorVerb::handle);
  }

  private static void handle(RoutingContext rc) {
    ExtenderArgs args = ExtenderArgs.decode(rc.body().buffer(), NodeDirectory.empty());
    Buffer answer =
        REPLIES.filter(args, FilterVerdict.allPassed(args.candidates().size(), Outcome.PASSED));
    rc.response()
        .putHeader("Content-Type", "application/json")
        .putHeader(HttpHeaders.CONTENT_ENCODING, HttpHeaders.IDENTITY)
        .end(answer);
  }
}
