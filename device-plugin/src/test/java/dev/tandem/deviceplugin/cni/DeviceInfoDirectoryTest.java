package dev.tandem.deviceplugin.cni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.container.DeviceInfo;
import dev.tandem.topology.model.PciAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The directory on a real file system. The tests run as root, for whom permission bits stop
 * nothing: "cannot be written" is shown with a path under a regular file (cannot be created) and
 * with procfs (a directory that refuses new files even to root, as a read-only mount does).
 */
@DisplayName("Device Information directory: created when missing, clear errors, whole files")
class DeviceInfoDirectoryTest {

  @TempDir Path tmp;

  private static final DeviceInfo VF =
      new DeviceInfo(
          "rdma-hca-0000:0b:00.2-device.json",
          PciAddress.parse("0000:0b:00.2"),
          "mlx5_4",
          PciAddress.parse("0000:0b:00.0"));

  @Test
  @DisplayName("a missing directory is created, as the specification asks of a device plugin")
  void createsMissing() throws Exception {
    Path dir = tmp.resolve("var/run/k8s.cni.cncf.io/devinfo/dp");
    new DeviceInfoDirectory(dir).prepare();
    assertTrue(Files.isDirectory(dir));
    try (var files = Files.list(dir)) {
      assertEquals(0, files.count(), "the probe file is gone");
    }
  }

  @Test
  @DisplayName("a directory that cannot be created is an error naming it, the setting and the fix")
  void underAFile() throws Exception {
    Path file = Files.writeString(tmp.resolve("not-a-dir"), "x");
    Path dir = file.resolve("dp");
    DeviceInfoException e =
        assertThrows(DeviceInfoException.class, () -> new DeviceInfoDirectory(dir).prepare());
    assertTrue(e.getMessage().startsWith("the device-info directory " + dir), e.getMessage());
    assertTrue(e.getMessage().contains("--device-info-dir"), e.getMessage());
    assertTrue(e.getMessage().contains("TANDEM_PLUGIN_DEVICE_INFO_DIR"), e.getMessage());
    assertTrue(e.getMessage().contains("read-write"), e.getMessage());
    assertTrue(e.getMessage().contains("to off"), e.getMessage());
  }

  @Test
  @DisplayName("an existing directory that refuses new files (procfs, even to root) is an error")
  void refusesFiles() {
    Path dir = Path.of("/proc/self");
    DeviceInfoException e =
        assertThrows(DeviceInfoException.class, () -> new DeviceInfoDirectory(dir).prepare());
    assertTrue(e.getMessage().startsWith("the device-info directory /proc/self"), e.getMessage());
    assertTrue(e.getMessage().contains("cannot be written"), e.getMessage());
  }

  @Test
  @DisplayName("write replaces the whole file, readable by all; present and delete see only names")
  void writePresentDelete() throws Exception {
    DeviceInfoDirectory d = new DeviceInfoDirectory(tmp);
    Files.writeString(tmp.resolve(VF.fileName()), "{\"stale\": tru");
    d.write(VF);
    assertEquals(VF.json(), Files.readString(tmp.resolve(VF.fileName())));
    assertEquals(
        "rw-r--r--",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve(VF.fileName()))));
    Files.writeString(tmp.resolve("intel.com-sriov-0000:0b:00.3-device.json"), "{}");
    assertEquals(
        Set.of(VF.fileName()), d.present(Set.of(VF.fileName(), "rdma-hca-mlx5_9-device.json")));
    assertTrue(d.delete(VF.fileName()));
    assertFalse(d.delete(VF.fileName()));
    assertTrue(Files.exists(tmp.resolve("intel.com-sriov-0000:0b:00.3-device.json")));
  }
}
