package dev.tandem.topology.model;

import java.util.Comparator;

/** Orders names with embedded numbers as people do: {@code mlx5_2} before {@code mlx5_10}. */
public final class NaturalOrder implements Comparator<String> {

  public static final NaturalOrder INSTANCE = new NaturalOrder();

  private NaturalOrder() {}

  @Override
  public int compare(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      char x = a.charAt(i);
      char y = b.charAt(j);
      if (Character.isDigit(x) && Character.isDigit(y)) {
        int endA = digitsEnd(a, i);
        int endB = digitsEnd(b, j);
        int c = compareNumbers(a.substring(i, endA), b.substring(j, endB));
        if (c != 0) {
          return c;
        }
        i = endA;
        j = endB;
      } else {
        if (x != y) {
          return Character.compare(x, y);
        }
        i++;
        j++;
      }
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  private static int digitsEnd(String s, int from) {
    int k = from;
    while (k < s.length() && Character.isDigit(s.charAt(k))) {
      k++;
    }
    return k;
  }

  private static int compareNumbers(String x, String y) {
    String a = x.replaceFirst("^0+(?=.)", "");
    String b = y.replaceFirst("^0+(?=.)", "");
    return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
  }
}
