package dev.tandem.deviceplugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.deviceplugin.lifecycle.PluginSockets;
import dev.tandem.deviceplugin.standin.KubeletStandIn;
import dev.tandem.fixtures.Topologies;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("the plugin process: exit codes, fixture run, SIGTERM removes the socket")
@ExtendWith(VertxExtension.class)
class MainIT {

  @TempDir Path dir;

  static Process launch(Path log, String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                DevicePluginMain.class.getName()));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /**
   * The flags of a run on the XE8640 fixture against a stand-in kubelet in {@code pluginDir}, then
   * more.
   */
  private String[] onFixture(Path pluginDir, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--plugin-dir",
                pluginDir.toString(),
                "--hwloc-xml",
                Topologies.path("dell-poweredge-xe8640-h100x4.xml").toString(),
                "--node-name",
                "n1",
                "--no-kube",
                "--ops-port",
                "0",
                "--pod-resources-socket",
                dir.resolve("pr.sock").toString()));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  static int exit(Path log, String... args) throws Exception {
    Process p = launch(log, args);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    return p.exitValue();
  }

  @Test
  @DisplayName(
      "--help exits 0 with usage; an unknown flag, a malformed config or a missing topology file exits 2 naming it")
  void exitCodes() throws Exception {
    Path log = dir.resolve("out");
    assertEquals(0, exit(log, "--help"));
    assertTrue(Files.readString(log).contains("usage: java -jar device-plugin.jar"));
    assertEquals(2, exit(log, "--plugin-dri", "/x"));
    assertTrue(
        Files.readString(log).contains("unknown flag '--plugin-dri'"), Files.readString(log));
    Path cfg = Files.writeString(dir.resolve("bad.json"), "{\"mode\":\"hca\",\"slots\":4}");
    assertEquals(2, exit(log, "--config", cfg.toString()));
    assertTrue(Files.readString(log).contains(cfg + ": unknown key slots"), Files.readString(log));
    assertEquals(2, exit(log, "--hwloc-xml", dir.resolve("absent.xml").toString()));
    assertTrue(
        Files.readString(log)
            .contains(
                "device-plugin: --hwloc-xml (TANDEM_HWLOC_XML): '"
                    + dir.resolve("absent.xml")
                    + "' is not a readable file"),
        Files.readString(log));
  }

  @Test
  @DisplayName(
      "a device-info directory that cannot be written stops the start: exit 1 naming it, the setting and the fix")
  void deviceInfoDirectoryUnwritable() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    Path log = dir.resolve("out");
    assertEquals(1, exit(log, onFixture(dir, "--device-info-dir", file.resolve("dp").toString())));
    String out = Files.readString(log);
    assertTrue(
        out.contains("the device-info directory " + file.resolve("dp") + " cannot be written"),
        out);
    assertTrue(out.contains("read-write"), out);
    assertTrue(out.contains("--device-info-dir (TANDEM_PLUGIN_DEVICE_INFO_DIR) to off"), out);
  }

  @Test
  @DisplayName(
      "on the XE8640 fixture it registers with the stand-in, and SIGTERM removes its socket")
  void fixtureAndSigterm(Vertx vertx, KubeletStandIn kubelet) throws Exception {
    Path plugins = kubelet.dir();
    Process p =
        launch(
            dir.resolve("log"),
            onFixture(plugins, "--device-info-dir", dir.resolve("devinfo").toString()));
    var list = kubelet.nextList(30_000);
    assertNotNull(list, () -> "no registration; log: " + read(dir.resolve("log")));
    assertEquals(
        List.of("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"),
        list.getDevicesList().stream().map(d -> d.getID()).toList());
    assertEquals(
        List.of("Healthy", "Unhealthy", "Unhealthy", "Unhealthy"),
        list.getDevicesList().stream().map(d -> d.getHealth()).toList(),
        "port states of the fixture (only mlx5_0 ACTIVE)");
    PluginSockets sockets = new PluginSockets(plugins.resolve("tandem-rdma.sock"));
    assertEquals(
        List.of(plugins.resolve(kubelet.registrations().get(0).getEndpoint())), sockets.existing());
    p.destroy();
    assertTrue(p.waitFor(15, TimeUnit.SECONDS));
    assertEquals(List.of(), sockets.existing(), "socket left behind after SIGTERM");
  }

  @Test
  @DisplayName(
      "without --config, k8s-rdma-sriov-dev-plugin's file at its mount path is read as it is: the"
          + " log names the file, the plugin registers that file's resource and mode")
  void dropInConfig(Vertx vertx, KubeletStandIn kubelet) throws Exception {
    Path dropIn = dir.resolve("k8s-rdma-sriov-dev-plugin/config.json");
    Files.createDirectories(dropIn.getParent());
    Files.writeString(dropIn, "{\"mode\": \"sriov\"}");
    Process p =
        launch(
            dir.resolve("log"),
            onFixture(
                kubelet.dir(), "--device-info-dir", "off", "--drop-in-config", dropIn.toString()));
    try {
      assertNotNull(kubelet.nextList(30_000), () -> "no list; log: " + read(dir.resolve("log")));
      assertEquals(
          List.of("rdma/vhca"),
          kubelet.registrations().stream().map(r -> r.getResourceName()).toList());
      String log = read(dir.resolve("log"));
      assertTrue(
          log.contains(
              "configuration: " + dropIn + " (no --config given: the --drop-in-config file)"),
          log);
      assertTrue(log.contains("sriov mode"), log);
    } finally {
      p.destroy();
      assertTrue(p.waitFor(15, TimeUnit.SECONDS));
    }
  }

  @Test
  @DisplayName(
      "joint mode as a process: {\"gpu\":{\"enabled\":true}} registers rdma/hca and nvidia.com/gpu (--gpu-endpoint), SIGTERM removes both sockets")
  void jointProcess(Vertx vertx, KubeletStandIn kubelet) throws Exception {
    Path plugins = kubelet.dir();
    Path cfg =
        Files.writeString(
            dir.resolve("joint.json"),
            "{\"mode\":\"hca\",\"gpu\":{\"enabled\":true,\"cdi\":true}}");
    Process p =
        launch(
            dir.resolve("log"),
            onFixture(
                plugins,
                "--config",
                cfg.toString(),
                "--gpu-endpoint",
                "joint-gpu.sock",
                "--device-info-dir",
                "off"));
    var gpus = kubelet.nextList("nvidia.com/gpu", 30_000);
    assertNotNull(gpus, () -> "no GPU registration; log: " + read(dir.resolve("log")));
    assertEquals(4, gpus.getDevicesCount());
    assertNotNull(
        kubelet.nextList("rdma/hca", 10_000),
        () -> "no HCA registration; log: " + read(dir.resolve("log")));
    PluginSockets gpuSockets = new PluginSockets(plugins.resolve("joint-gpu.sock"));
    PluginSockets hcaSockets = new PluginSockets(plugins.resolve("tandem-rdma.sock"));
    assertEquals(1, gpuSockets.existing().size());
    assertEquals(1, hcaSockets.existing().size());
    assertTrue(read(dir.resolve("log")).contains("nvidia-ml"), "the NVML note is logged");
    p.destroy();
    assertTrue(p.waitFor(15, TimeUnit.SECONDS));
    assertEquals(
        List.of(),
        Stream.concat(gpuSockets.existing().stream(), hcaSockets.existing().stream()).toList(),
        "socket left behind after SIGTERM");
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (Exception e) {
      return e.toString();
    }
  }
}
