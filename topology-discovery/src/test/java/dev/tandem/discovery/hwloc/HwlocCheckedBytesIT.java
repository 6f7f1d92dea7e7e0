package dev.tandem.discovery.hwloc;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.Topologies;
import dev.tandem.topology.model.Machine;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * libhwloc parses the bytes discovery read and checked, never the file again: the file here is a
 * named pipe whose first read gives one machine and whose second read would give another, so a
 * second read (libhwloc opening the path after the check) would show as the other machine.
 */
@DisplayName("libhwloc parses the very bytes that were checked, not the file read again")
class HwlocCheckedBytesIT {

  @TempDir Path dir;

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  @DisplayName("a file that reads as another machine the second time: the checked read is parsed")
  void secondReadIsNeverParsed() throws Exception {
    Path file = dir.resolve("topology.xml");
    new ProcessBuilder("mkfifo", file.toString()).inheritIO().start().waitFor();
    byte[] checked = Files.readAllBytes(Topologies.path("penguin-relion-x1904gt-p100x2.xml"));
    byte[] other = Files.readAllBytes(Topologies.path("dell-poweredge-xe8640-h100x4.xml"));
    Thread writer =
        new Thread(
            () -> {
              writeOnce(file, checked);
              // until the first reader has closed the pipe, a second writer's bytes would follow
              // the first's in its read: no end of file comes between them
              await().atMost(Duration.ofMinutes(1)).until(() -> !openHere(file));
              writeOnce(file, other);
            },
            "fifo-writer");
    writer.setDaemon(true);
    writer.start();

    Machine m = TopologySources.discoverOnce(DiscoveryOptions.hwlocXml("node-a", file)).machine();

    assertEquals(2, m.gpus().size(), "the Relion (2 GPUs), not the XE8640 (4) of a second read");
    assertArrayEquals(other, Files.readAllBytes(file), "the second content is still unread");
    writer.join();
  }

  /** Whether this process has the file open (a link in {@code /proc/self/fd} names it). */
  private static boolean openHere(Path file) throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.anyMatch(
          fd -> {
            try {
              return Files.readSymbolicLink(fd).equals(file);
            } catch (IOException gone) {
              return false; // closed while listed
            }
          });
    }
  }

  /**
   * Writes {@code bytes} to the next reader of the pipe. A reader that closes without reading (the
   * first reader, closing after its end of file just as this opens again) breaks the pipe: then
   * again, to the next reader.
   */
  private static void writeOnce(Path fifo, byte[] bytes) {
    while (true) {
      try (OutputStream out = Files.newOutputStream(fifo)) {
        out.write(bytes);
        return;
      } catch (IOException brokenPipe) {
        // the reader went away unread; the next one gets the whole content
      }
    }
  }
}
