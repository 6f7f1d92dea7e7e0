package dev.tandem.extender.http;

import io.vertx.core.http.HttpClosedException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What no route answers, and every failure: a JSON {@code error}. A malformed request gets 400 with
 * what is wrong ({@link RequestHeaders}' refusals keep their 415 or 417); a request Vert.x refuses
 * by status alone keeps its 4xx with a message (its body handler answered a stray {@code Expect}
 * with a bare 417, which fell through to a 500 "internal error: null"); an unexpected failure gets
 * 500 and a warning in the log.
 */
public final class ErrorRoutes {

  private static final Logger LOG = LoggerFactory.getLogger(ErrorRoutes.class);

  private ErrorRoutes() {}

  /** Mount after every other route. */
  public static void mount(Router router) {
    router
        .route()
        .last()
        .handler(
            ctx ->
                InspectionRoutes.json(
                    ctx,
                    404,
                    new JsonObject()
                        .put(
                            "error",
                            "no route " + ctx.request().method() + " " + ctx.request().path())));
    router.route().failureHandler(ErrorRoutes::failure);
  }

  private static void failure(RoutingContext ctx) {
    Throwable e = ctx.failure();
    int status = ctx.statusCode();
    String message;
    if (e instanceof BadRequest bad) {
      status = bad.status();
      message = e.getMessage();
    } else if (status == 413) {
      status = 400;
      message =
          "request body over the body limit (raise --body-limit if kube-scheduler sends more)";
    } else if (e == null && status >= 400 && status < 500) {
      message = "cannot serve " + ctx.request().method() + " " + ctx.request().path();
    } else if (e instanceof HttpClosedException) {
      LOG.debug(
          "{} {}: the client closed the connection", ctx.request().method(), ctx.request().path());
      return;
    } else {
      LOG.warn("{} {} failed", ctx.request().method(), ctx.request().path(), e);
      status = 500;
      message = "internal error: " + e;
    }
    if (!ctx.response().ended() && !ctx.response().headWritten()) {
      ctx.response()
          .setStatusCode(status)
          .putHeader("content-type", "application/json")
          .end(new JsonObject().put("error", message).toBuffer());
    }
  }
}
