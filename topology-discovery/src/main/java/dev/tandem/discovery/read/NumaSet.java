package dev.tandem.discovery.read;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Sets of NUMA node or CPU numbers as hwloc and Linux write them, and the CPU domain ids built from
 * them. A CPU domain is named by its NUMA nodes ({@code numa:0}, {@code numa:0-3}, {@code
 * numa:0,2}) so that every source names the same domain the same way.
 */
public final class NumaSet {

  private NumaSet() {}

  /** The id of the CPU domain holding these NUMA nodes; {@code machine} when none are known. */
  public static String domainId(List<Integer> numaNodes) {
    if (numaNodes.isEmpty()) {
      return "machine";
    }
    return "numa:" + toList(numaNodes);
  }

  /** Linux list format: {@code 0-3,8}. */
  public static String toList(List<Integer> values) {
    List<Integer> sorted = new ArrayList<>(new TreeSet<>(values));
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < sorted.size(); ) {
      int j = i;
      while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
        j++;
      }
      if (out.length() > 0) {
        out.append(',');
      }
      out.append(sorted.get(i));
      if (j > i) {
        out.append('-').append(sorted.get(j));
      }
      i = j + 1;
    }
    return out.toString();
  }

  /**
   * Parses Linux list format ({@code 0-3,8-11}); empty or blank gives an empty list.
   *
   * @throws NumberFormatException for a number that is not a Linux CPU or NUMA number (0 to {@link
   *     IdRanges#MAX_CPUS} - 1) or a range whose end is below its start: a list read from a sysfs
   *     tree is bounded before it is expanded
   */
  public static List<Integer> parseList(String text) {
    List<Integer> out = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return out;
    }
    for (String part : text.trim().split(",")) {
      String[] range = part.trim().split("-");
      int from = listNumber(range[0], text);
      int to = range.length > 1 ? listNumber(range[1], text) : from;
      if (to < from) {
        throw new NumberFormatException(
            "list '" + text + "': range " + part.trim() + " ends below its start");
      }
      for (int v = from; v <= to; v++) {
        out.add(v);
      }
    }
    return out;
  }

  private static int listNumber(String number, String text) {
    int v = Integer.parseInt(number.trim());
    if (v < 0 || v >= IdRanges.MAX_CPUS) {
      throw new NumberFormatException(
          "list '"
              + text
              + "': "
              + v
              + " is not a number from 0 to "
              + (IdRanges.MAX_CPUS - 1)
              + " (a Linux CPU or NUMA number: NR_CPUS is at most "
              + IdRanges.MAX_CPUS
              + ")");
    }
    return v;
  }

  /**
   * Parses an hwloc bitmap as exported in XML: comma-separated 32-bit hex words, most significant
   * first ({@code 0xffffffff,0x00000003}); {@code 0xf...f} prefixes meaning "infinite" are ignored.
   */
  public static List<Integer> parseBitmap(String text) {
    List<Integer> out = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return out;
    }
    String[] words = text.trim().split(",");
    for (int w = 0; w < words.length; w++) {
      String word = words[w].trim();
      if (word.startsWith("0x") || word.startsWith("0X")) {
        word = word.substring(2);
      }
      if (word.isEmpty()) {
        continue;
      }
      long bits = Long.parseLong(word, 16);
      int base = (words.length - 1 - w) * 32;
      for (int b = 0; b < 32; b++) {
        if ((bits >> b & 1L) != 0) {
          out.add(base + b);
        }
      }
    }
    out.sort(null);
    return out;
  }
}
