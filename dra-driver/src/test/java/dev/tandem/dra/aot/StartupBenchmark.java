package dev.tandem.dra.aot;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The DRA driver's start-up to ready, and its RSS, with the AOT cache the build trained and without
 * it, side by side in one run: {@code rounds} rounds of {@link DriverWorkload} with the DaemonSet's
 * JVM options, each round starting the driver once with {@code -XX:AOTCache} and once without, the
 * order flipped every round (so neither always starts first on a loaded machine). Prints one line
 * per start and the medians.
 *
 * <pre>
 * mvn -o -q -pl dra-driver -am package -DskipTests      # writes dra-driver/target/dra-driver.aot
 * (cd dra-driver &amp;&amp; java -cp target/test-classes:target/classes:TEST_CLASSPATH \
 *     [-Ddriver.jar=target/dra-driver.jar] [-Ddriver.aot=target/dra-driver.aot] \
 *     dev.tandem.dra.aot.StartupBenchmark [rounds] [claims])
 * </pre>
 */
public final class StartupBenchmark {

  private StartupBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int claims = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    Path jar = Path.of(System.getProperty("driver.jar", "target/dra-driver.jar"));
    Path cache = Path.of(System.getProperty("driver.aot", "target/dra-driver.aot"));
    if (!Files.isRegularFile(cache)) {
      throw new IllegalStateException("no AOT cache at " + cache + ": build the module first");
    }
    List<String> options = DriverWorkload.daemonSetOptions();
    System.out.println("JVM options " + options + ", cache " + cache.toAbsolutePath());
    List<DriverWorkload.Figures> without = new ArrayList<>();
    List<DriverWorkload.Figures> with = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      boolean cacheFirst = round % 2 == 0;
      for (boolean useCache : new boolean[] {cacheFirst, !cacheFirst}) {
        List<String> jvm = new ArrayList<>(options);
        if (useCache) {
          jvm.add("-XX:AOTCache=" + cache.toAbsolutePath());
        }
        DriverWorkload.Figures f =
            DriverWorkload.run(
                jvm, DriverWorkload.jar(jar), Files.createTempDirectory("dra-startup"), claims);
        (useCache ? with : without).add(f);
        System.out.printf("round %d, %s: %s%n", round, useCache ? "AOT cache" : "no cache", f);
      }
    }
    report("no cache", without);
    report("AOT cache", with);
  }

  private static void report(String what, List<DriverWorkload.Figures> runs) {
    System.out.printf(
        "%-9s median: ready %d ms, RSS %.1f MiB, VmHWM %.1f MiB, %d claims in %d ms%n",
        what,
        (long) median(runs.stream().mapToDouble(DriverWorkload.Figures::readyMs).toArray()),
        median(runs.stream().mapToDouble(DriverWorkload.Figures::rssMib).toArray()),
        median(runs.stream().mapToDouble(DriverWorkload.Figures::hwmMib).toArray()),
        runs.get(0).prepared(),
        (long) median(runs.stream().mapToDouble(DriverWorkload.Figures::claimsMs).toArray()));
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
}
