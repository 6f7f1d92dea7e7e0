package dev.tandem.api.pod;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * How many devices a quantity of an extended resource stands for: its value rounded up to a whole
 * number, as kube-scheduler and the kubelet's device manager read it ({@code Quantity.Value()}), so
 * {@code 2}, {@code "2"}, {@code "2000m"} and {@code "0.002k"} are 2 and {@code "1500m"} is 2. Any
 * Kubernetes quantity form is read (suffixes {@code m}, {@code k}, {@code M}, {@code Ki}, …, and
 * exponents such as {@code 1e3}). The API server refuses a fraction for an extended resource, so a
 * stored pod never has one to round.
 */
public final class DeviceQuantity {

  private static final BigDecimal MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  private DeviceQuantity() {}

  /**
   * The whole units of {@code q}.
   *
   * @throws IllegalArgumentException when {@code q} is not a Kubernetes quantity, is negative, or
   *     is too large for a count; the message quotes the value, the caller names where it stood
   */
  public static long units(Quantity q) {
    String plain = q.getAmount();
    if ((q.getFormat() == null || q.getFormat().isEmpty()) && digits(plain)) {
      return Long.parseLong(plain); // the common case, "2", without BigDecimal
    }
    BigDecimal amount;
    try {
      amount = Quantity.getAmountInBytes(q);
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new IllegalArgumentException(
          "'" + text(q) + "' is not a Kubernetes quantity (e.g. 2, 1k, 500m)", e);
    }
    if (amount.signum() < 0) {
      throw new IllegalArgumentException("'" + text(q) + "' is negative");
    }
    BigDecimal whole = amount.setScale(0, RoundingMode.CEILING);
    if (whole.compareTo(MAX) > 0) {
      throw new IllegalArgumentException("'" + text(q) + "' is too large for a device count");
    }
    return whole.longValueExact();
  }

  /** Only decimal digits, few enough to fit a long. */
  private static boolean digits(String s) {
    if (s == null || s.isEmpty() || s.length() > 18) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private static String text(Quantity q) {
    return q.getAmount() + (q.getFormat() == null ? "" : q.getFormat());
  }
}
