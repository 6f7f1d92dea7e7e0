package dev.tandem.extender.http;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.StaticHandler;

/** {@code /ui/}: the topology page, served from the jar; {@code /} and {@code /ui} lead to it. */
public final class UiRoutes {

  private UiRoutes() {}

  public static void mount(Router router) {
    router.get("/").handler(ctx -> redirect(ctx, "/ui/"));
    router
        .get("/ui")
        .handler(
            ctx -> {
              if (ctx.request().path().equals("/ui")) {
                redirect(ctx, "/ui/");
              } else {
                ctx.next();
              }
            });
    router.route("/ui/*").handler(StaticHandler.create("webroot/ui").setCachingEnabled(false));
  }

  private static void redirect(RoutingContext ctx, String to) {
    ctx.response().setStatusCode(302).putHeader("location", to).end();
  }
}
