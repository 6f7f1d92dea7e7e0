package dev.tandem.api.pod;

/**
 * A pod whose gang cannot be read: it names two gangs, or a rank or rail alignment that is not
 * valid. The message names the pod, the keys and their values, and says what to change; the
 * extender refuses the pod with it.
 */
public final class InvalidGang extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  InvalidGang(String message) {
    super(message);
  }
}
