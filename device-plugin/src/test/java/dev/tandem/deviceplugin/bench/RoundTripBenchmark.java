package dev.tandem.deviceplugin.bench;

import dev.tandem.deviceplugin.lifecycle.PluginSockets;
import dev.tandem.deviceplugin.standin.KubeletStandIn;
import dev.tandem.fixtures.PodJvmOptions;
import dev.tandem.fixtures.ProcessFootprint;
import dev.tandem.fixtures.Topologies;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vertx.core.Vertx;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * Round trips of GetPreferredAllocation and Allocate over the plugin's Unix socket, and the
 * plugin's RSS, twice: with the Device Information files Allocate writes, then without them (the
 * baseline, printed below the first). The plugin runs as its own process from the shaded jar, on an
 * hwloc fixture with a fake sysfs tree and without the API-server lookup (--no-kube); this JVM
 * plays the kubelet. {@code -Dbreakdown=DIR} writes each plugin's smaps, threads and Native Memory
 * Tracking summary under DIR/device-info and DIR/off before it is stopped (NMT only with {@code
 * -XX:NativeMemoryTracking=summary} among the plugin's options).
 *
 * <pre>
 * mvn -q -pl device-plugin -am package -DskipTests
 * java -cp device-plugin/target/test-classes:test-fixtures/target/classes:device-plugin/target/device-plugin.jar \
 *     [-Dplugin.java=/path/to/bin/java] [-Dplugin.jar=...] [-Dbreakdown=DIR] \
 *     dev.tandem.deviceplugin.bench.RoundTripBenchmark [iterations] [plugin JVM options...]
 * </pre>
 */
public final class RoundTripBenchmark {

  /** Calls timed right after registration, while both JVMs still interpret and compile. */
  private static final int COLD_CALLS = 100;

  /**
   * Calls before the steady figures (-Dwarmup=N). Fewer leave the kubelet JVM's C2 compiler threads
   * competing with the plugin for the two cores, which shows in the plugin's p99 and is not the
   * plugin's; fewer are enough where only the RSS is read.
   */
  private static final int WARMUP_CALLS = Integer.getInteger("warmup", 5000);

  /** The DaemonSet's JAVA_TOOL_OPTIONS, without the image's cache (manifests/base). */
  static final List<String> DAEMONSET_OPTIONS =
      PodJvmOptions.of("manifests/base/daemonset-device-plugin.yaml");

  private RoundTripBenchmark() {}

  public static void main(String[] args) throws Exception {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    List<String> jvm =
        args.length > 1 ? Arrays.asList(args).subList(1, args.length) : DAEMONSET_OPTIONS;
    Path jar = Path.of(System.getProperty("plugin.jar", "device-plugin/target/device-plugin.jar"));
    Path sysfs = fakeSysfs();
    for (boolean deviceInfo : new boolean[] {true, false}) {
      System.out.println(
          deviceInfo
              ? "== with Device Information files (--device-info-dir, the default)"
              : "== without (--device-info-dir off), the baseline");
      run(
          jvm,
          jar,
          fixture(),
          Files.createTempDirectory("dp-bench"),
          sysfs,
          deviceInfo,
          iterations);
    }
  }

  /** The hwloc fixture the plugin discovers its HCAs on (-Dfixture, default the XE8640). */
  static Path fixture() {
    return Path.of(
        System.getProperty(
            "fixture", Topologies.path("dell-poweredge-xe8640-h100x4.xml").toString()));
  }

  /** A sysfs tree with the fixture's four HCAs, each with a uverbs device and an active port. */
  static Path fakeSysfs() throws IOException {
    Path sysfs = Files.createTempDirectory("dp-bench-sysfs");
    for (int i = 0; i < 4; i++) {
      Files.createDirectories(
          sysfs.resolve("sys/class/infiniband/mlx5_" + i + "/device/infiniband_verbs/uverbs" + i));
      Path port =
          Files.createDirectories(sysfs.resolve("sys/class/infiniband/mlx5_" + i + "/ports/1"));
      Files.writeString(port.resolve("state"), "4: ACTIVE\n");
    }
    return sysfs;
  }

  /** One plugin process, its figures printed; {@code deviceInfo} writes the files on Allocate. */
  static void run(
      List<String> jvm,
      Path jar,
      Path fixture,
      Path dir,
      Path sysfs,
      boolean deviceInfo,
      int iterations)
      throws Exception {
    Vertx vertx = Vertx.vertx();
    KubeletStandIn kubelet = new KubeletStandIn(vertx, dir);
    kubelet.start().await();
    List<String> cmd = new ArrayList<>();
    // -Dplugin.java: the plugin on another JDK (17 against 25, docs/performance.md)
    cmd.add(
        System.getProperty(
            "plugin.java", Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(jvm);
    cmd.addAll(
        List.of(
            "-jar",
            jar.toString(),
            "--plugin-dir",
            dir.toString(),
            "--hwloc-xml",
            fixture.toString(),
            "--sysfs-root",
            sysfs.toString(),
            "--node-name",
            "bench",
            "--no-kube",
            // an ephemeral ops port: another plugin on the machine (a test, a second benchmark)
            // may hold the default 9402, and the plugin exits when it cannot listen
            "--ops-port",
            "0",
            "--device-info-dir",
            deviceInfo ? dir.resolve("devinfo").toString() : "off"));
    long started = System.nanoTime();
    Process plugin =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(new File(dir.toFile(), "plugin.log"))
            .start();
    try {
      // 2 minutes: on a loaded 2-core build machine (load 16) the AOT training's plugin took over
      // 30 s
      ListAndWatchResponse list = kubelet.nextList(120_000);
      if (list == null) {
        throw new IllegalStateException(
            "plugin did not register; see " + dir.resolve("plugin.log"));
      }
      List<String> ids = list.getDevicesList().stream().map(d -> d.getID()).toList();
      PreferredAllocationRequest pref =
          PreferredAllocationRequest.newBuilder()
              .addContainerRequests(
                  ContainerPreferredAllocationRequest.newBuilder()
                      .addAllAvailableDeviceIDs(ids)
                      .setAllocationSize(2))
              .build();
      AllocateRequest alloc =
          AllocateRequest.newBuilder()
              .addContainerRequests(
                  ContainerAllocateRequest.newBuilder()
                      .addDevicesIds(ids.get(0))
                      .addDevicesIds(ids.get(1)))
              .build();
      System.out.println(
          "registered and listed its devices "
              + (System.nanoTime() - started) / 1_000_000
              + " ms after its start; plugin pid "
              + plugin.pid()
              + ", JVM options "
              + jvm
              + ", "
              + ids.size()
              + " devices, "
              + iterations
              + " calls each");
      long[] coldPreferred = measure(COLD_CALLS, () -> kubelet.preferred(pref));
      long[] coldAllocate = measure(COLD_CALLS, () -> kubelet.allocate(alloc));
      report("GetPreferredAllocation", "first " + COLD_CALLS, coldPreferred);
      report("Allocate", "first " + COLD_CALLS, coldAllocate);
      measure(WARMUP_CALLS, () -> kubelet.preferred(pref));
      measure(WARMUP_CALLS, () -> kubelet.allocate(alloc));
      report(
          "GetPreferredAllocation", "steady", measure(iterations, () -> kubelet.preferred(pref)));
      report("Allocate", "steady", measure(iterations, () -> kubelet.allocate(alloc)));
      System.out.println("plugin " + ProcessFootprint.of(plugin.pid()));
      String breakdown = System.getProperty("breakdown");
      if (breakdown != null) {
        ProcessFootprint.writeBreakdown(
            plugin.pid(), Path.of(breakdown, deviceInfo ? "device-info" : "off"));
      }
    } finally {
      plugin.destroy();
      plugin.waitFor();
      System.out.println(
          "plugin exited "
              + plugin.exitValue()
              + " on SIGTERM; socket removed: "
              + new PluginSockets(dir.resolve("tandem-rdma.sock")).existing().isEmpty());
      vertx.close().await();
    }
  }

  private static long[] measure(int n, Supplier<?> call) {
    long[] ns = new long[n];
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      call.get();
      ns[i] = System.nanoTime() - t0;
    }
    Arrays.sort(ns);
    return ns;
  }

  private static void report(String what, String phase, long[] sorted) {
    System.out.printf(
        "%-24s %-10s p50 %7.3f ms   p99 %7.3f ms   max %7.3f ms%n",
        what,
        phase,
        sorted[sorted.length / 2] / 1e6,
        sorted[(int) (sorted.length * 0.99)] / 1e6,
        sorted[sorted.length - 1] / 1e6);
  }
}
