package dev.tandem.discovery.read;

/**
 * The ranges of the numbers topology files give: CPU and NUMA node numbers as Linux defines them,
 * and hwloc's unsigned indexes. A number out of its range is refused before it is used (libhwloc
 * sizes a CPU or NUMA bitmap by the largest number it is given: a CPU numbered 2,147,483,648 kept
 * it busy for minutes and hundreds of megabytes).
 */
public final class IdRanges {

  /** Linux CPU numbers are below NR_CPUS, which no architecture lets exceed 8,192. */
  public static final int MAX_CPUS = 8192;

  /** Linux NUMA node numbers are below MAX_NUMNODES = 1 << NODES_SHIFT, NODES_SHIFT at most 10. */
  public static final int MAX_NUMA_NODES = 1024;

  /** hwloc's indexes ({@code os_index}, cache {@code depth}) are C {@code unsigned}: 32 bits. */
  public static final long MAX_UNSIGNED = 0xffff_ffffL;

  private IdRanges() {}

  /** A CPU number (0 to 8,191). */
  public static int cpu(String attribute, String text) {
    return (int)
        decimal(attribute, text, MAX_CPUS - 1, "a Linux CPU number: NR_CPUS is at most 8192");
  }

  /** A NUMA node number (0 to 1,023). */
  public static int numaNode(String attribute, String text) {
    return (int)
        decimal(
            attribute,
            text,
            MAX_NUMA_NODES - 1,
            "a Linux NUMA node number: MAX_NUMNODES is at most 1024");
  }

  /** A C {@code unsigned} (0 to 4,294,967,295). */
  public static long unsigned(String attribute, String text) {
    return decimal(attribute, text, MAX_UNSIGNED, "hwloc's unsigned 32-bit index");
  }

  /**
   * A decimal number from 0 to {@code max}; {@code meaning} says where the bound comes from.
   *
   * @throws IllegalArgumentException naming the attribute, the value and the range
   */
  public static long decimal(String attribute, String text, long max, String meaning) {
    String t = text.trim();
    boolean digits =
        !t.isEmpty() && t.length() <= 18 && t.chars().allMatch(c -> c >= '0' && c <= '9');
    long value = digits ? Long.parseLong(t) : -1;
    if (value < 0 || value > max) {
      throw new IllegalArgumentException(
          attribute
              + " '"
              + shortened(text)
              + "' is not a number from 0 to "
              + max
              + " ("
              + meaning
              + ")");
    }
    return value;
  }

  private static String shortened(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "…";
  }
}
