package dev.tandem.extender.http;

/** A body kube-scheduler could never send: answered 400 with a JSON error. */
final class BadRequest extends RuntimeException {

  private static final long serialVersionUID = 1L;

  BadRequest(String message) {
    super(message, null, false, false);
  }
}
