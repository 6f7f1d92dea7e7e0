package dev.tandem.api.claims;

/**
 * A shape and policy no claim within the API's limits expresses exactly; the message names the
 * shape and the nearest shapes that can be expressed.
 */
public final class InexpressibleClaimException extends IllegalArgumentException {

  public InexpressibleClaimException(String message) {
    super(message);
  }
}
