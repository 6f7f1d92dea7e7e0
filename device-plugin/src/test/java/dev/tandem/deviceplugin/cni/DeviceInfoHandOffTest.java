package dev.tandem.deviceplugin.cni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.container.DeviceInfo;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.preferred.HeldDevices;
import dev.tandem.fixtures.MovableClock;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("CNI hand-off: a file per granted device, removed once no container holds it")
@ExtendWith(VertxExtension.class)
class DeviceInfoHandOffTest {

  @TempDir Path dir;

  private Vertx vertx;
  private final List<HeldDevices> held = new ArrayList<>();
  private final MovableClock clock = new MovableClock(Instant.parse("2026-11-24T10:00:00Z"));

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  private DeviceInfoHandOff handOff(Inventory inv) {
    return new DeviceInfoHandOff(
        vertx, inv, dir, () -> Future.succeededFuture(List.copyOf(held)), clock);
  }

  private static Inventory hcas() {
    return Inventory.of(TestMachines.twoSockets("n1"), ResourceConfig.DEFAULT);
  }

  private Path file(String id) {
    return dir.resolve(DeviceInfo.fileName("rdma/hca", id));
  }

  private void later(Duration d) {
    clock.advance(d);
  }

  @Test
  @DisplayName("Allocate of a VF writes its file before answering: VF, PF and RDMA device")
  void grantedVf() throws Exception {
    Inventory inv =
        Inventory.of(
            TestMachines.vmWithVf("n1"), ResourceConfig.parse("{\"mode\":\"sriov\"}", "t"));
    handOff(inv).granted(List.of("0000:0b:00.2")).await();
    JsonObject pci = new JsonObject(Files.readString(file("0000:0b:00.2"))).getJsonObject("pci");
    assertEquals("0000:0b:00.2", pci.getString("pci-address"));
    assertEquals("0000:0b:00.0", pci.getString("pf-pci-address"));
    assertEquals("mlx5_4", pci.getString("rdma-device"));
  }

  @Test
  @DisplayName(
      "reconcile keeps held and just-granted devices' files, removes the others after the grace")
  void releasedAfterGrace() throws Exception {
    DeviceInfoHandOff h = handOff(hcas());
    h.granted(List.of("mlx5_0", "mlx5_1")).await();
    held.add(new HeldDevices("ns", "p", "c", "rdma/hca", List.of("mlx5_0")));

    DeviceInfoHandOff.Sweep first = h.reconcile().await();
    assertEquals(List.of(), first.removed(), "mlx5_1 was granted within the grace");

    later(DeviceInfoHandOff.GRACE.plusSeconds(1));
    DeviceInfoHandOff.Sweep second = h.reconcile().await();
    assertEquals(List.of("mlx5_1"), second.removed());
    assertTrue(Files.exists(file("mlx5_0")));
    assertFalse(Files.exists(file("mlx5_1")));

    held.clear();
    assertEquals(List.of("mlx5_0"), h.reconcile().await().removed());
    assertFalse(Files.exists(file("mlx5_0")));
  }

  @Test
  @DisplayName(
      "after a restart: stale files go at once, held devices' missing files come back, others' stay")
  void restart() throws Exception {
    handOff(hcas()).granted(List.of("mlx5_0", "mlx5_1")).await();
    Files.delete(file("mlx5_0"));
    Path other = Files.writeString(dir.resolve("intel.com-sriov_a-0000:3b:02.1-device.json"), "{}");
    Path otherResource = Files.writeString(dir.resolve("rdma-shared-mlx5_1-device.json"), "{}");
    held.add(new HeldDevices("ns", "p", "c", "rdma/hca", List.of("mlx5_0")));
    held.add(new HeldDevices("ns", "p", "c", "nvidia.com/gpu", List.of("mlx5_1")));

    DeviceInfoHandOff.Sweep s = handOff(hcas()).reconcile().await();

    assertEquals(List.of("mlx5_1"), s.removed());
    assertEquals(List.of("mlx5_0"), s.restored());
    assertEquals(
        "mlx5_0",
        new JsonObject(Files.readString(file("mlx5_0")))
            .getJsonObject("pci")
            .getString("rdma-device"));
    assertTrue(Files.exists(other) && Files.exists(otherResource));
  }

  @Test
  @DisplayName("PodResources unreadable: the reconcile fails and removes nothing")
  void podResourcesDown() throws Exception {
    handOff(hcas()).granted(List.of("mlx5_0")).await();
    later(Duration.ofMinutes(5));
    DeviceInfoHandOff h =
        new DeviceInfoHandOff(
            vertx, hcas(), dir, () -> Future.failedFuture("connection refused"), clock);
    assertThrows(Exception.class, () -> h.reconcile().await());
    assertTrue(Files.exists(file("mlx5_0")));
  }

  @Test
  @DisplayName("a reconcile whose PodResources answer comes after stop writes no file back")
  void reconcileInFlightAtStop() throws Exception {
    Promise<List<HeldDevices>> late = Promise.promise();
    DeviceInfoHandOff h = new DeviceInfoHandOff(vertx, hcas(), dir, late::future, clock);
    h.granted(List.of("mlx5_0")).await();
    Files.delete(file("mlx5_0"));
    Future<DeviceInfoHandOff.Sweep> inFlight = h.reconcile();
    h.stop().await();
    late.complete(List.of(new HeldDevices("ns", "p", "c", "rdma/hca", List.of("mlx5_0"))));
    assertEquals(List.of(), inFlight.await().restored());
    assertFalse(Files.exists(file("mlx5_0")));
  }

  @Test
  @DisplayName("stop removes this plugin's files only, as the specification asks")
  void stop() throws Exception {
    DeviceInfoHandOff h = handOff(hcas());
    h.granted(List.of("mlx5_0", "mlx5_1")).await();
    Path other = Files.writeString(dir.resolve("intel.com-sriov_a-0000:3b:02.1-device.json"), "{}");
    h.stop().await();
    assertFalse(Files.exists(file("mlx5_0")) || Files.exists(file("mlx5_1")));
    assertTrue(Files.exists(other));
  }

  @Test
  @DisplayName("a file that cannot be written fails the hand-off naming the file, device and fix")
  void writeFails() throws Exception {
    // a directory wiped while the plugin runs is created again; one under a regular file cannot be
    Path blocked = Files.writeString(dir.resolve("not-a-dir"), "x").resolve("dp");
    DeviceInfoHandOff h =
        new DeviceInfoHandOff(
            vertx, hcas(), blocked, () -> Future.succeededFuture(List.of()), clock);
    Exception e = assertThrows(Exception.class, () -> h.granted(List.of("mlx5_1")).await());
    assertTrue(e.getMessage().contains("the device-info file " + blocked), e.getMessage());
    assertTrue(
        e.getMessage().contains("of rdma/hca device mlx5_1 on node n1 cannot be written"),
        e.getMessage());
    assertTrue(e.getMessage().contains("--device-info-dir"), e.getMessage());
  }
}
