package dev.tandem.kit.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
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
@DisplayName("a host directory: created when missing, whole files, errors that name path and fix")
class HostDirectoryTest {

  private static final String FIX = "Mount it read-write.";

  @TempDir Path tmp;

  private HostDirectory at(Path dir) {
    return new HostDirectory(dir, "device-info", FIX);
  }

  @Test
  @DisplayName("a missing directory is created, and the probe file is gone")
  void createsMissing() throws Exception {
    Path dir = tmp.resolve("var/run/k8s.cni.cncf.io/devinfo/dp");
    at(dir).prepare();
    assertTrue(Files.isDirectory(dir));
    try (var files = Files.list(dir)) {
      assertEquals(0, files.count());
    }
  }

  @Test
  @DisplayName("a directory that cannot be created: the error names it, the cause and the fix")
  void underAFile() throws Exception {
    Path dir = Files.writeString(tmp.resolve("not-a-dir"), "x").resolve("dp");
    HostFileException e = assertThrows(HostFileException.class, () -> at(dir).prepare());
    assertTrue(e.getMessage().startsWith("the device-info directory " + dir), e.getMessage());
    assertTrue(e.getMessage().endsWith(". " + FIX), e.getMessage());
  }

  @Test
  @DisplayName("an existing directory that refuses new files (procfs, even to root) is an error")
  void refusesFiles() {
    HostDirectory proc = at(Path.of("/proc/self"));
    HostFileException e = assertThrows(HostFileException.class, proc::prepare);
    assertTrue(e.getMessage().startsWith("the device-info directory /proc/self cannot be written"));
    e = assertThrows(HostFileException.class, () -> proc.write("f.json", new byte[1], "mlx5_4"));
    assertTrue(
        e.getMessage().startsWith("the device-info file /proc/self/f.json of mlx5_4 cannot be"),
        e.getMessage());
    assertTrue(e.getMessage().endsWith(FIX), e.getMessage());
    e = assertThrows(HostFileException.class, () -> proc.write("f.json", new byte[1]));
    assertTrue(
        e.getMessage().startsWith("the device-info file /proc/self/f.json cannot be written"),
        e.getMessage());
  }

  @Test
  @DisplayName("write replaces the whole file, readable by all; present and remove see only names")
  void writePresentRemove() throws Exception {
    HostDirectory d = at(tmp.resolve("new"));
    d.write("a.json", "{}".getBytes(StandardCharsets.UTF_8), "mlx5_4");
    d.write("a.json", "{\"b\":1}".getBytes(StandardCharsets.UTF_8), "mlx5_4");
    Path a = tmp.resolve("new/a.json");
    assertEquals("{\"b\":1}", Files.readString(a));
    assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(a)));
    Files.writeString(tmp.resolve("new/other.json"), "{}");
    assertEquals(Set.of("a.json"), d.present(Set.of("a.json", "missing.json")));
    assertTrue(d.exists("a.json"));
    assertTrue(d.remove("a.json"));
    assertFalse(d.remove("a.json"));
    assertFalse(d.exists("a.json"));
    assertTrue(Files.exists(tmp.resolve("new/other.json")));
  }

  @Test
  @DisplayName("listing a directory that is gone is an error naming it")
  void listGone() {
    HostFileException e =
        assertThrows(HostFileException.class, () -> at(tmp.resolve("gone")).present(Set.of("a")));
    assertTrue(e.getMessage().startsWith("the device-info directory " + tmp.resolve("gone")));
  }
}
