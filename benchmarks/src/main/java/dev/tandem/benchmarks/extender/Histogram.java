package dev.tandem.benchmarks.extender;

import java.util.ArrayList;
import java.util.List;

/**
 * A class histogram as {@code jcmd <pid> GC.class_histogram} prints it: rows of rank, instances,
 * bytes and class name, then a {@code Total} line. The JVM's filler arrays ({@code
 * [Ljdk.internal.vm.FillerElement;}, Java 21 and later: dead space it keeps parsable, JDK-8319548)
 * are not objects and are left out of rows and total.
 *
 * @param rows the classes by bytes, largest first
 * @param totalBytes bytes of all live objects
 */
record Histogram(List<Row> rows, long totalBytes) {

  private static final String FILLER = "[Ljdk.internal.vm.FillerElement;";

  /** One class's live instances and bytes. */
  record Row(String name, long instances, long bytes) {}

  static Histogram parse(String text) {
    List<Row> rows = new ArrayList<>();
    long total = -1;
    long filler = 0;
    for (String line : text.lines().toList()) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 3 && f[0].equals("Total")) {
        total = Long.parseLong(f[2]);
      } else if (f.length >= 4 && f[0].endsWith(":") && f[3].equals(FILLER)) {
        filler += Long.parseLong(f[2]);
      } else if (f.length >= 4 && f[0].endsWith(":")) {
        rows.add(new Row(f[3], Long.parseLong(f[1]), Long.parseLong(f[2])));
      }
    }
    if (total < 0) {
      throw new IllegalStateException("not a class histogram:\n" + text);
    }
    return new Histogram(List.copyOf(rows), total - filler);
  }

  /** Live instances of a class, 0 when none. */
  long instances(String className) {
    return rows.stream().filter(r -> r.name.equals(className)).mapToLong(Row::instances).sum();
  }

  List<Row> top(int n) {
    return rows.subList(0, Math.min(n, rows.size()));
  }
}
