package dev.tandem.extender;

import io.vertx.core.Future;
import io.vertx.core.http.HttpServer;

/**
 * The extender's two servers: the scheduler verbs (kube-scheduler only, mutual TLS) and the
 * read-only inspection port (API, page, probes, metrics), which never serves a verb.
 */
public record Listeners(HttpServer verbs, HttpServer inspection) {

  public int verbsPort() {
    return verbs.actualPort();
  }

  public int inspectionPort() {
    return inspection.actualPort();
  }

  public Future<Void> close() {
    return Future.all(verbs.close(), inspection.close()).mapEmpty();
  }
}
