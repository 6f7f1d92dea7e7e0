package dev.tandem.dra.aot;

import dev.tandem.fixtures.AotCacheTraining;

/**
 * Writes the DRA driver's AOT cache (JEP 514, {@code -XX:AOTCacheOutput}): the shaded jar runs as
 * its own process with the DaemonSet's JVM options ({@code manifests/overlays/dra}) through {@link
 * DriverWorkload} (discovery of the XE8640, its ResourceSlices published to the fabric8 mock API
 * server, registration with a stand-in kubelet, the health stream, Prepare and Unprepare of
 * allocated claims over the DRA socket, CDI specs and the checkpoint written), and its JVM writes
 * the cache as SIGTERM ends it. The build runs this after shading the jar (the root POM's {@code
 * aot-cache} execution); the image ships the cache and the DaemonSet names it with {@code
 * -XX:AOTCache}. A training that fails leaves no cache and fails no build ({@link
 * AotCacheTraining}).
 *
 * <pre>
 * (cd dra-driver &amp;&amp; java -cp target/test-classes:target/classes:TEST_CLASSPATH \
 *     dev.tandem.dra.aot.AotTraining target/dra-driver.jar target/dra-driver.aot [claims])
 * </pre>
 */
public final class AotTraining {

  /** Claims prepared and unprepared in the training. */
  static final int CLAIMS = 100;

  private AotTraining() {}

  public static void main(String[] args) throws Exception {
    AotCacheTraining.train(
        args,
        "DRA driver",
        "dra-aot-training",
        DriverWorkload.daemonSetOptions(),
        CLAIMS,
        (jvm, jar, dir, claims) ->
            System.out.println(
                "DRA driver trained: "
                    + DriverWorkload.run(jvm, DriverWorkload.jar(jar), dir, claims)));
  }
}
