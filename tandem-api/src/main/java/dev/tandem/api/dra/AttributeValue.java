package dev.tandem.api.dra;

/**
 * The value of a device attribute: exactly one of a string, an integer, a boolean or a semantic
 * version, as a ResourceSlice carries it.
 */
public record AttributeValue(String string, Long integer, Boolean bool, String version) {

  /** The longest string or version value the API accepts. */
  public static final int MAX_VALUE_LENGTH = 64;

  public AttributeValue {
    int set =
        (string != null ? 1 : 0)
            + (integer != null ? 1 : 0)
            + (bool != null ? 1 : 0)
            + (version != null ? 1 : 0);
    if (set != 1) {
      throw new IllegalArgumentException("an attribute value holds exactly one value, got " + set);
    }
  }

  public static AttributeValue text(String value) {
    return new AttributeValue(value, null, null, null);
  }

  public static AttributeValue number(long value) {
    return new AttributeValue(null, value, null, null);
  }

  public static AttributeValue flag(boolean value) {
    return new AttributeValue(null, null, value, null);
  }

  /** The value as text, for messages. */
  @Override
  public String toString() {
    if (string != null) {
      return "\"" + string + "\"";
    }
    return String.valueOf(integer != null ? integer : bool != null ? bool : version);
  }
}
