package dev.tandem.deviceplugin.bench;

import dev.tandem.fixtures.AotCacheTraining;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the device plugin's AOT cache (JEP 514, {@code -XX:AOTCacheOutput}): the shaded jar runs
 * as its own process with the DaemonSet's JVM options through {@link RoundTripBenchmark}'s workload
 * (registration, ListAndWatch, GetPreferredAllocation and Allocate over its Unix socket, Device
 * Information files written), and its JVM writes the cache as SIGTERM ends it. The build runs this
 * after shading the jar (the root POM's {@code aot-cache} execution); the image ships the cache
 * beside the jar and the DaemonSet names it with {@code -XX:AOTCache}. A training that fails leaves
 * no cache and fails no build ({@link AotCacheTraining}).
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
    int calls = args.length > 2 ? Integer.parseInt(args[2]) : 500;
    Path dir = Files.createTempDirectory("dp-aot-training");
    AotCacheTraining.write(
        "device plugin",
        RoundTripBenchmark.DAEMONSET_OPTIONS,
        Path.of(args[1]),
        dir,
        jvm ->
            RoundTripBenchmark.run(
                jvm,
                jar,
                RoundTripBenchmark.fixture(),
                dir,
                RoundTripBenchmark.fakeSysfs(),
                true,
                calls));
  }
}
