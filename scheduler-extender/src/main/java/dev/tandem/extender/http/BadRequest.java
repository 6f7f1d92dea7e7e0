package dev.tandem.extender.http;

/**
 * A request kube-scheduler could never send: answered with a 4xx (400 unless said otherwise) and a
 * JSON error.
 */
final class BadRequest extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int status;

  BadRequest(String message) {
    this(400, message);
  }

  BadRequest(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  int status() {
    return status;
  }
}
