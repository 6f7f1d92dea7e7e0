package dev.tandem.extender.verbs;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Whole units from a Kubernetes quantity ({@code "2"}, {@code "1k"}, {@code 4}). */
final class Quantities {

  private Quantities() {}

  static long units(Object value) {
    if (value instanceof Number n) {
      return n.longValue();
    }
    String s = String.valueOf(value).trim();
    if (s.isEmpty()) {
      throw new IllegalArgumentException("empty quantity");
    }
    if (allDigits(s)) {
      return Long.parseLong(s);
    }
    int cut = s.length();
    while (cut > 0 && Character.isLetter(s.charAt(cut - 1))) {
      cut--;
    }
    BigDecimal number = new BigDecimal(s.substring(0, cut));
    BigDecimal factor =
        switch (s.substring(cut)) {
          case "" -> BigDecimal.ONE;
          case "m" -> new BigDecimal("0.001");
          case "k" -> BigDecimal.TEN.pow(3);
          case "M" -> BigDecimal.TEN.pow(6);
          case "G" -> BigDecimal.TEN.pow(9);
          case "Ki" -> BigDecimal.valueOf(1L << 10);
          case "Mi" -> BigDecimal.valueOf(1L << 20);
          case "Gi" -> BigDecimal.valueOf(1L << 30);
          default ->
              throw new IllegalArgumentException("quantity '" + s + "' has an unknown suffix");
        };
    return number.multiply(factor).setScale(0, RoundingMode.CEILING).longValueExact();
  }

  private static boolean allDigits(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return s.length() < 18;
  }
}
