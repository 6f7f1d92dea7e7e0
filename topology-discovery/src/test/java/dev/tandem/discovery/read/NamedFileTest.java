package dev.tandem.discovery.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.DiscoveryException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("topology files are read up to 1 MiB and decoded strictly as UTF-8")
class NamedFileTest {

  @TempDir Path dir;

  @Test
  @DisplayName("a file over 1 MiB is refused naming the limit")
  void tooLarge() throws Exception {
    Path file = Files.write(dir.resolve("big.xml"), new byte[(1 << 20) + 1]);
    assertEquals(
        "NCCL topology file "
            + file
            + " is larger than 1048576 bytes: over the limit for topology files, see"
            + " docs/discovery.md#limits-on-topology-files",
        assertThrows(DiscoveryException.class, () -> NamedFile.bytes(file, "NCCL topology file"))
            .getMessage());
    Path limit = Files.write(dir.resolve("limit.xml"), new byte[1 << 20]);
    assertEquals(1 << 20, NamedFile.bytes(limit, "f").length);
  }

  @Test
  @DisplayName("a malformed sequence is refused naming its byte offset and line")
  void malformed() {
    byte[] bytes = "<a>\n<b x=\"é\"/>\n</a>".getBytes(StandardCharsets.UTF_8);
    bytes[10] = (byte) 0xc3;
    bytes[11] = 0x28; // é is c3 a9; c3 28 is not UTF-8
    DiscoveryException e =
        assertThrows(DiscoveryException.class, () -> NamedFile.utf8(bytes, "f.xml"));
    assertTrue(
        e.getMessage().startsWith("f.xml is not valid UTF-8: byte 10 (line 2) starts a malformed"),
        e.getMessage());
    assertThrows(
        DiscoveryException.class, () -> NamedFile.utf8(new byte[] {'a', (byte) 0xe2}, "f.xml"));
  }

  @Test
  @DisplayName("valid UTF-8 decodes, a byte order mark dropped")
  void valid() {
    byte[] bom = {(byte) 0xef, (byte) 0xbb, (byte) 0xbf, '<', 'a', '/', '>'};
    assertEquals("<a/>", NamedFile.utf8(bom, "f"));
    assertEquals("é", NamedFile.utf8("é".getBytes(StandardCharsets.UTF_8), "f"));
  }
}
