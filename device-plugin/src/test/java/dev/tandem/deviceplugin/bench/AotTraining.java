package dev.tandem.deviceplugin.bench;

import dev.tandem.fixtures.AotCacheTraining;

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
    AotCacheTraining.train(
        args,
        "device plugin",
        "dp-aot-training",
        RoundTripBenchmark.DAEMONSET_OPTIONS,
        500,
        (jvm, jar, dir, calls) ->
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
