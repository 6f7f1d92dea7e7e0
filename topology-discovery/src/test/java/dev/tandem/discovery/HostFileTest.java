package dev.tandem.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("a host file is read whole up to 64 KiB of UTF-8, else refused naming it")
class HostFileTest {

  @TempDir Path dir;

  @Test
  @DisplayName("a sysfs attribute reads as its text")
  void reads() throws IOException {
    Path f = Files.writeString(dir.resolve("state"), "4: ACTIVE\n");
    assertEquals("4: ACTIVE\n", HostFile.read(f));
  }

  @Test
  @DisplayName("64 KiB reads; one byte more, or a link to /dev/zero, is refused naming the file")
  void bounded() throws IOException {
    Path most = Files.write(dir.resolve("most"), new byte[HostFile.MAX_BYTES]);
    assertEquals(HostFile.MAX_BYTES, HostFile.read(most).length());
    Path over = Files.write(dir.resolve("over"), new byte[HostFile.MAX_BYTES + 1]);
    assertTrue(
        assertThrows(IOException.class, () -> HostFile.read(over))
            .getMessage()
            .contains(over.toString()));
    Path zero = Files.createSymbolicLink(dir.resolve("class"), Path.of("/dev/zero"));
    assertTrue(
        assertThrows(IOException.class, () -> HostFile.read(zero))
            .getMessage()
            .contains("more than 65536 bytes"));
  }

  @Test
  @DisplayName("bytes that are not UTF-8 are refused, not read as U+FFFD")
  void strictUtf8() throws IOException {
    Path f = Files.write(dir.resolve("ibdev"), new byte[] {'m', 'l', (byte) 0xC0, (byte) 0x80});
    assertTrue(
        assertThrows(IOException.class, () -> HostFile.read(f)).getMessage().contains("not UTF-8"));
  }
}
