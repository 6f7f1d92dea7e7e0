package dev.tandem.api.pod;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * How many devices a quantity of an extended resource stands for: its value rounded up to a whole
 * number, as kube-scheduler and the kubelet's device manager read it ({@code Quantity.Value()}), so
 * {@code 2}, {@code "2"}, {@code "2000m"} and {@code "0.002k"} are 2 and {@code "1500m"} is 2. Any
 * Kubernetes quantity form is read (suffixes {@code n}, {@code u}, {@code m}, {@code k}, {@code M},
 * {@code Ki}, …, and exponents such as {@code 1e3}). The API server refuses a fraction for an
 * extended resource, so a stored pod never has one to round.
 *
 * <p>The text is read in one pass over its characters, and its magnitude is known before any number
 * is built: Kubernetes caps no decimal exponent (it reads {@code e12000000} as a 64-bit integer and
 * keeps 32 bits of it), and materialising {@code 1e12000000} as a whole number held an event loop
 * for seconds. A value of more than 10 integer digits, or of more devices than {@link #MAX_UNITS},
 * is refused as {@link DeviceCountTooLarge} without arithmetic; at most 64 significant digits are
 * ever handed to {@link BigDecimal}.
 */
public final class DeviceQuantity {

  /** The most devices one quantity may name: the allocator counts devices in an {@code int}. */
  public static final long MAX_UNITS = Integer.MAX_VALUE;

  /** A value of more integer digits than this (10^10 and up) is more than {@link #MAX_UNITS}. */
  private static final int MAX_DIGITS = 10;

  /** A value whose first digit stands this far below the point is under 1 even times 2^60. */
  private static final int TINY = -19;

  /** More significant digits than any count of devices, fraction and all, could need. */
  static final int MAX_SIGNIFICANT = 64;

  private static final BigDecimal MAX = BigDecimal.valueOf(MAX_UNITS);

  private DeviceQuantity() {}

  /**
   * The whole units of {@code q}.
   *
   * @throws DeviceCountTooLarge when {@code q} names more than {@link #MAX_UNITS} devices
   * @throws IllegalArgumentException when {@code q} is not a Kubernetes quantity or is negative;
   *     the message quotes the value, the caller names where it stood
   */
  public static long units(Quantity q) {
    String text = text(q);
    if (digits(text)) {
      long plain = Long.parseLong(text); // the common case, "2", without BigDecimal
      if (plain > MAX_UNITS) {
        throw tooLarge(text);
      }
      return plain;
    }
    Scanned s = Scanned.of(text);
    if (s.significant.isEmpty()) {
      return 0;
    }
    if (s.negative) {
      throw new IllegalArgumentException("'" + quoted(text) + "' is negative");
    }
    if (s.point > MAX_DIGITS) {
      throw tooLarge(text);
    }
    if (s.point <= TINY) {
      return 1; // a positive value under one device: rounded up, as Value() does
    }
    if (s.significant.length() > MAX_SIGNIFICANT) {
      throw notAQuantity(text, "more than " + MAX_SIGNIFICANT + " significant digits");
    }
    BigDecimal amount =
        new BigDecimal(new BigInteger(s.significant), (int) (s.significant.length() - s.point))
            .multiply(new BigDecimal(BigInteger.ONE.shiftLeft(s.binaryExponent)));
    BigDecimal whole = amount.setScale(0, RoundingMode.CEILING);
    if (whole.compareTo(MAX) > 0) {
      throw tooLarge(text);
    }
    return whole.longValueExact();
  }

  /** Only decimal digits, few enough to fit a long. */
  private static boolean digits(String s) {
    if (s.isEmpty() || s.length() > 18) {
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
    String amount = q.getAmount() == null ? "" : q.getAmount();
    return amount + (q.getFormat() == null ? "" : q.getFormat());
  }

  /** At most 40 characters of the value: the rest only repeats a huge exponent or digits. */
  static String quoted(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "…(" + text.length() + " chars)";
  }

  private static DeviceCountTooLarge tooLarge(String text) {
    return new DeviceCountTooLarge(
        "'" + quoted(text) + "' is more devices than any node has (at most " + MAX_UNITS + ")");
  }

  static IllegalArgumentException notAQuantity(String text, String why) {
    return new IllegalArgumentException(
        "'" + quoted(text) + "' is not a Kubernetes quantity (e.g. 2, 1k, 500m): " + why);
  }

  /**
   * A quantity's text read by Kubernetes' grammar: {@code [+-] digits [. digits] suffix}, where the
   * suffix is a decimal SI one ({@code n u m "" k M G T P E}), a binary one ({@code Ki … Ei}) or an
   * exponent ({@code e}/{@code E}, an optional sign and digits).
   *
   * @param negative whether a minus sign leads
   * @param significant the digits without leading or trailing zeros; empty when the value is 0
   * @param point where the decimal point stands in {@code significant}, with the decimal suffix or
   *     exponent applied: the value is {@code 0.<significant> × 10^point × 2^binaryExponent}
   * @param binaryExponent 0, or 10 to 60 for {@code Ki} to {@code Ei}
   */
  private record Scanned(boolean negative, String significant, long point, int binaryExponent) {

    static Scanned of(String text) {
      int i = 0;
      int end = text.length();
      boolean negative = false;
      if (i < end && (text.charAt(i) == '-' || text.charAt(i) == '+')) {
        negative = text.charAt(i) == '-';
        i++;
      }
      int intStart = i;
      i = skipDigits(text, i);
      int intEnd = i;
      int fracStart = i;
      int fracEnd = i;
      if (i < end && text.charAt(i) == '.') {
        fracStart = i + 1;
        i = skipDigits(text, fracStart);
        fracEnd = i;
      }
      if (intEnd == intStart && fracEnd == fracStart) {
        throw notAQuantity(text, "no digits");
      }
      String suffix = text.substring(i);
      int binary = binaryExponent(suffix);
      long decimal = binary > 0 ? 0 : decimalExponent(text, suffix);
      String all = text.substring(intStart, intEnd) + text.substring(fracStart, fracEnd);
      int first = 0;
      while (first < all.length() && all.charAt(first) == '0') {
        first++;
      }
      int last = all.length();
      while (last > first && all.charAt(last - 1) == '0') {
        last--;
      }
      long point = (long) (intEnd - intStart) - first + decimal;
      return new Scanned(negative, all.substring(first, last), point, binary);
    }

    private static int skipDigits(String text, int i) {
      while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
        i++;
      }
      return i;
    }

    private static int binaryExponent(String suffix) {
      return switch (suffix) {
        case "Ki" -> 10;
        case "Mi" -> 20;
        case "Gi" -> 30;
        case "Ti" -> 40;
        case "Pi" -> 50;
        case "Ei" -> 60;
        default -> 0;
      };
    }

    /** The power of ten of a decimal SI suffix or an exponent, as Kubernetes keeps it (32 bits). */
    private static long decimalExponent(String text, String suffix) {
      return switch (suffix) {
        case "n" -> -9;
        case "u" -> -6;
        case "m" -> -3;
        case "" -> 0;
        case "k" -> 3;
        case "M" -> 6;
        case "G" -> 9;
        case "T" -> 12;
        case "P" -> 15;
        case "E" -> 18;
        default -> exponent(text, suffix);
      };
    }

    private static long exponent(String text, String suffix) {
      if (suffix.length() < 2 || (suffix.charAt(0) != 'e' && suffix.charAt(0) != 'E')) {
        throw notAQuantity(text, "unknown suffix");
      }
      int i = 1;
      boolean minus = suffix.charAt(i) == '-';
      if (minus || suffix.charAt(i) == '+') {
        i++;
      }
      if (i == suffix.length()) {
        throw notAQuantity(text, "an exponent without digits");
      }
      long e = 0;
      for (; i < suffix.length(); i++) {
        char c = suffix.charAt(i);
        if (c < '0' || c > '9') {
          throw notAQuantity(text, "unknown suffix");
        }
        if (e > (Long.MAX_VALUE - (c - '0')) / 10) {
          throw notAQuantity(text, "an exponent beyond 64 bits");
        }
        e = e * 10 + (c - '0');
      }
      return (int) (minus ? -e : e); // Kubernetes' suffixer keeps the low 32 bits
    }
  }
}
