package dev.tandem.kit.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("a file written whole: replaced in one step, readable by all, no temporary file left")
class WholeFileTest {

  @TempDir Path dir;

  @Test
  @DisplayName("writes, then replaces, leaving only the target, mode rw-r--r--")
  void writesWhole() throws IOException {
    Path target = dir.resolve("spec.json");
    WholeFile.write(target, "one".getBytes(StandardCharsets.UTF_8));
    WholeFile.write(target, "two".getBytes(StandardCharsets.UTF_8));
    assertEquals("two", Files.readString(target));
    assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(List.of(target), files.toList());
    }
  }

  @Test
  @DisplayName("a directory that cannot hold the file: an error in words, the old file untouched")
  void failsWhole() throws IOException {
    Path notADirectory = Files.writeString(dir.resolve("state"), "old");
    IOException e =
        assertThrows(
            IOException.class,
            () -> WholeFile.write(notADirectory.resolve("x.json"), new byte[] {1}));
    assertEquals("Not a directory", WholeFile.why(e));
    assertEquals("old", Files.readString(notADirectory));
    assertThrows(IOException.class, () -> WholeFile.proveWritable(notADirectory.resolve("d")));
  }
}
