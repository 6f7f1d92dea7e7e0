package dev.tandem.deviceplugin.config;

import dev.tandem.kit.config.InvalidConfigurationException;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;

/**
 * The config file's counts and seconds: JSON numbers read as exactly the whole number written, or
 * refused. JSON's own reading would truncate: {@code 1.5} to 1, {@code 4294967297} to 1 (the low 32
 * bits), {@code 1e400} to 2147483647.
 */
final class WholeNumbers {

  private WholeNumbers() {}

  /**
   * {@code key}'s value as an int; {@code absent} when the key is absent or null.
   *
   * @param prefix how the key is named in the error, e.g. {@code gpu.}
   */
  static int read(JsonObject o, String prefix, String key, int absent) {
    Object value = o.getValue(key);
    if (value == null) {
      return absent;
    }
    if (!(value instanceof Number n)) {
      throw new InvalidConfigurationException(
          prefix + key + " must be a whole number, got " + value.getClass().getSimpleName());
    }
    BigDecimal exact = exact(n);
    if (exact == null
        || exact.stripTrailingZeros().scale() > 0
        || exact.compareTo(BigDecimal.valueOf(Integer.MIN_VALUE)) < 0
        || exact.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
      throw new InvalidConfigurationException(
          prefix + key + " must be a whole number of at most " + Integer.MAX_VALUE + ", got " + n);
    }
    return exact.intValueExact();
  }

  /** The number's exact value; null for an infinity or NaN. */
  private static BigDecimal exact(Number n) {
    try {
      return new BigDecimal(n.toString());
    } catch (NumberFormatException infinite) {
      return null;
    }
  }
}
