package dev.tandem.discovery;

import dev.tandem.fixtures.Topologies;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Measures discovery time per fixture after JVM start (not a test; run by hand, see
 * docs/discovery.md): the first discovery in the JVM (class loading, libhwloc load) and the median
 * and maximum of 20 later ones (wall clock), plus the median thread CPU time (the JNA calls into
 * libhwloc run on the calling thread, so it covers hwloc and the Java side; it is what a shared,
 * loaded machine distorts least), for every hwloc XML (through libhwloc) and NCCL file under {@code
 * topologies/}.
 *
 * <pre>
 * java -cp node-topology-agent/target/node-topology-agent.jar:node-topology-agent/target/test-classes \
 *     dev.tandem.discovery.DiscoveryTiming</pre>
 */
public final class DiscoveryTiming {

  private static final int RUNS = 20;

  private DiscoveryTiming() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
    Path dir = Topologies.directory();
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      s.filter(p -> p.toString().endsWith(".xml")).sorted().forEach(files::add);
    }
    try (Stream<Path> s = Files.list(dir.resolve("nccl-topo"))) {
      s.sorted().forEach(files::add);
    }
    System.out.println(
        "| File | Size (KiB) | First in JVM (ms) | Median of 20 (ms) | Max of 20 (ms) | Median CPU (ms) |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (Path f : files) {
      boolean nccl = f.getParent().getFileName().toString().equals("nccl-topo");
      DiscoveryOptions o =
          nccl ? DiscoveryOptions.ncclTopo("n", f) : DiscoveryOptions.hwlocXml("n", f);
      long first = time(o)[0];
      long[] t = new long[RUNS];
      long[] cpu = new long[RUNS];
      for (int i = 0; i < RUNS; i++) {
        long[] r = time(o);
        t[i] = r[0];
        cpu[i] = r[1];
      }
      Arrays.sort(t);
      Arrays.sort(cpu);
      System.out.printf(
          Locale.ROOT,
          "| `%s` | %d | %.1f | %.1f | %.1f | %.1f |%n",
          (nccl ? "nccl-topo/" : "") + f.getFileName(),
          Files.size(f) / 1024,
          first / 1e6,
          t[RUNS / 2] / 1e6,
          t[RUNS - 1] / 1e6,
          cpu[RUNS / 2] / 1e6);
    }
  }

  /** Wall and thread CPU nanoseconds of one discovery. */
  private static long[] time(DiscoveryOptions o) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long cpu = mx.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    TopologySources.discoverOnce(o);
    return new long[] {System.nanoTime() - start, mx.getCurrentThreadCpuTime() - cpu};
  }
}
