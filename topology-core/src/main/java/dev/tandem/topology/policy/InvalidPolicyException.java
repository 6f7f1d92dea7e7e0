package dev.tandem.topology.policy;

/**
 * An annotation or setting whose value is not one Tandem knows; the message lists the allowed ones.
 */
public class InvalidPolicyException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  public InvalidPolicyException(String key, String value, String allowed) {
    super(key + ": unknown value '" + value + "'; allowed: " + allowed);
  }
}
