package dev.tandem.deviceplugin.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the device plugin's AOT cache (JEP 514, {@code -XX:AOTCacheOutput}): the shaded jar runs
 * as its own process with the DaemonSet's JVM options through {@link RoundTripBenchmark}'s workload
 * (registration, ListAndWatch, GetPreferredAllocation and Allocate over its Unix socket, Device
 * Information files written), and its JVM writes the cache as SIGTERM ends it. The build runs this
 * after shading the jar (device-plugin/pom.xml, {@code package}); the image ships the cache beside
 * the jar and the DaemonSet names it with {@code -XX:AOTCache}. A training that fails leaves no
 * cache and fails no build: the plugin then starts without one, as it does with a cache another JDK
 * build wrote.
 *
 * <pre>
 * java -cp device-plugin/target/test-classes:test-fixtures/target/classes:device-plugin/target/device-plugin.jar \
 *     [-Dwarmup=N] dev.tandem.deviceplugin.bench.AotTraining JAR CACHE [calls]
 * </pre>
 */
public final class AotTraining {

  private AotTraining() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]);
    Path cache = Path.of(args[1]).toAbsolutePath();
    int calls = args.length > 2 ? Integer.parseInt(args[2]) : 500;
    List<String> jvm = new ArrayList<>(RoundTripBenchmark.DAEMONSET_OPTIONS);
    jvm.add("-XX:AOTCacheOutput=" + cache);
    Files.deleteIfExists(cache);
    Path dir = Files.createTempDirectory("dp-aot-training");
    try {
      RoundTripBenchmark.run(
          jvm, jar, RoundTripBenchmark.fixture(), dir, RoundTripBenchmark.fakeSysfs(), true, calls);
    } catch (Exception | AssertionError e) {
      System.out.println("AOT training of " + jar + " failed (plugin log in " + dir + "): " + e);
    }
    if (Files.isRegularFile(cache)) {
      System.out.printf("AOT cache %s written, %d MiB%n", cache, Files.size(cache) >> 20);
    } else {
      System.out.println(
          "WARNING: no AOT cache written at "
              + cache
              + "; the device plugin starts without one (slower first calls), see "
              + dir);
    }
  }
}
