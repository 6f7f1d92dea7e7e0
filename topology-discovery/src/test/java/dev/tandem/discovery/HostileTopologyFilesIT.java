package dev.tandem.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.HostileTopologies;
import dev.tandem.fixtures.HostileTopologies.Format;
import dev.tandem.fixtures.Topologies;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The classes of hostile topology file an outside fuzzer found (issue #32), each built from a real
 * file and read through the real source (libhwloc included): each is refused with a {@link
 * DiscoveryException} naming the file and the limit, before libhwloc or a DOM sees it.
 */
@DisplayName("hostile topology files are refused naming the file and the limit")
class HostileTopologyFilesIT {

  private static final String RELION = "penguin-relion-x1904gt-p100x2.xml";
  private static final String NDV4 = "nccl-topo/azure-ndv4-a100.xml";

  @TempDir Path dir;

  private static String text(String fixture) throws Exception {
    return Files.readString(Topologies.path(fixture));
  }

  private String hwlocFails(byte[] bytes) throws Exception {
    Path file = Files.write(dir.resolve("hostile.xml"), bytes);
    DiscoveryException e =
        assertThrows(
            DiscoveryException.class,
            () -> TopologySources.discoverOnce(DiscoveryOptions.hwlocXml("n", file)));
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    return e.getMessage();
  }

  private String ncclFails(byte[] bytes) throws Exception {
    Path file = Files.write(dir.resolve("hostile-nccl.xml"), bytes);
    DiscoveryException e =
        assertThrows(
            DiscoveryException.class,
            () -> TopologySources.discoverOnce(DiscoveryOptions.ncclTopo("n", file)));
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    return e.getMessage();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  @DisplayName(
      "nested thousands of levels deep: refused before libhwloc (which crashes with signal 11) and before"
          + " the NCCL reader's recursion")
  void deep() throws Exception {
    String hwloc = hwlocFails(utf8(HostileTopologies.nest(text(RELION), Format.HWLOC, 40, 5000)));
    assertTrue(hwloc.contains("nests elements deeper than 64 levels (at line "), hwloc);
    assertTrue(hwloc.contains("docs/discovery.md#limits-on-topology-files"), hwloc);

    String nccl = ncclFails(utf8(HostileTopologies.nest(text(NDV4), Format.NCCL, 3, 5_000)));
    assertTrue(nccl.contains("nests elements deeper than 64 levels"), nccl);
  }

  @Test
  @DisplayName("a value of 100,000 characters, and a file over 1 MiB, are refused")
  void hugeValues() throws Exception {
    String value = hwlocFails(utf8(HostileTopologies.hugeValue(text(RELION), 7, 100_000)));
    assertTrue(value.contains("is 100000 characters, over 65536 characters"), value);

    String big = ncclFails(utf8(HostileTopologies.hugeValue(text(NDV4), 3, 5 << 20)));
    assertTrue(big.contains("is larger than 1048576 bytes"), big);
  }

  @Test
  @DisplayName("20,000 small elements are refused at the 10,001st")
  void manyElements() throws Exception {
    // the file's last element: an <info/>
    String message = hwlocFails(utf8(HostileTopologies.repeat(text(RELION), -1, 20_000)));
    assertTrue(message.contains("has more than 10000 elements"), message);
  }

  @Test
  @DisplayName(
      "os_index -2147483648 on every object (libhwloc spent minutes on it) and extreme NUMA ids are"
          + " refused, naming the range")
  void extremeNumbers() throws Exception {
    String osIndex =
        hwlocFails(utf8(HostileTopologies.number(text(RELION), "os_index", "-2147483648", -1)));
    assertTrue(
        osIndex.contains("os_index '-2147483648' is not a number from 0 to 4294967295"), osIndex);

    String cpu =
        hwlocFails(
            utf8(
                text(RELION)
                    .replaceFirst(
                        "type=\"PU\" os_index=\"\\d+\"", "type=\"PU\" os_index=\"8192\"")));
    assertTrue(cpu.contains("os_index '8192' is not a number from 0 to 8191"), cpu);

    String numa = ncclFails(utf8(HostileTopologies.number(text(NDV4), "numaid", "2147483648", 0)));
    assertTrue(numa.contains("numaid '2147483648' is not a number from 0 to 1023"), numa);
  }

  @Test
  @DisplayName("malformed UTF-8 is refused naming the byte offset and the line")
  void malformedUtf8() throws Exception {
    byte[] bytes = HostileTopologies.malformedUtf8(text(NDV4), 5, new byte[] {(byte) 0xc3, 0x28});
    String message = ncclFails(bytes);
    int offset = indexOf(bytes, (byte) 0xc3);
    long line =
        1
            + new String(bytes, 0, offset, StandardCharsets.UTF_8)
                .chars()
                .filter(c -> c == '\n')
                .count();
    assertTrue(
        message.contains("is not valid UTF-8: byte " + offset + " (line " + line + ")"), message);

    String hwloc =
        hwlocFails(HostileTopologies.malformedUtf8(text(RELION), 9, new byte[] {(byte) 0xff}));
    assertTrue(hwloc.contains("is not valid UTF-8"), hwloc);
  }

  @Test
  @DisplayName("every real file passes the limits and reads as before")
  void realFilesPass() throws Exception {
    assertEquals(
        2,
        TopologySources.discoverOnce(DiscoveryOptions.hwlocXml("n", Topologies.path(RELION)))
            .machine()
            .gpus()
            .size());
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }
}
