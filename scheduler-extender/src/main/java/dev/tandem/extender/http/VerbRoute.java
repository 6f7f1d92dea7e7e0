package dev.tandem.extender.http;

import dev.tandem.extender.verbs.PodRequest;
import dev.tandem.extender.verbs.PodRequests;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * What every route of kube-scheduler's verbs does alike ({@link ReadingRoutes}, {@link
 * SchedulerRoutes}): the POST with its headers checked and its body read within the limit, the pod
 * the body names, the JSON answer.
 */
final class VerbRoute {

  private VerbRoute() {}

  /** {@code POST <prefix><verb>}, answered by {@code handler} once headers and body pass. */
  static void post(
      Router router, String prefix, long bodyLimit, String verb, Handler<RoutingContext> handler) {
    String base = prefix.equals("/") ? "" : prefix;
    router
        .post(base + verb)
        .handler(new RequestHeaders())
        .handler(BodyHandler.create(false).setBodyLimit(bodyLimit))
        .handler(handler);
  }

  /**
   * The pod a verb's body carries, as the verbs read it; a {@link BadRequest} when it is not one.
   *
   * @param what where in the body it is, for the error
   */
  static PodRequest pod(PodRequests requests, JsonObject json, String what) {
    try {
      return requests.of(json);
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new BadRequest(what + " is not a v1.Pod: " + e.getMessage());
    }
  }

  /**
   * Answers uncompressed even when the scheduler accepts gzip: Go's client takes either, and on
   * loopback or a cluster network compressing costs more time than it saves ({@code identity} makes
   * Vert.x skip compression and drop the header).
   */
  static void reply(RoutingContext ctx, Buffer body) {
    ctx.response()
        .putHeader("content-type", "application/json")
        .putHeader(HttpHeaders.CONTENT_ENCODING, HttpHeaders.IDENTITY)
        .end(body);
  }
}
