package dev.tandem.dra.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("a CDI directory read as the CDI library reads it (pkg/cdi/spec-dirs.go)")
class CdiSpecFilesTest {

  @TempDir Path dir;

  @Test
  @DisplayName(
      "*.json and *.yaml files directly in it, in name order; other names and subdirectories skipped")
  void whatIsRead() throws IOException {
    Files.writeString(
        dir.resolve("b.yaml"), "kind: x.example/a\ndevices:\n- name: one\n- name: two\n");
    Files.writeString(
        dir.resolve("a.json"), "{\"kind\":\"x.example/b\",\"devices\":[{\"name\":\"3\"}]}");
    Files.writeString(dir.resolve("c.yml"), "kind: x.example/a\ndevices:\n- name: yml\n");
    Files.writeString(dir.resolve("d.json.bak"), "{\"kind\":\"x.example/a\"}");
    Files.createDirectories(dir.resolve("sub.json"));
    Files.createDirectories(dir.resolve("nested"));
    Files.writeString(dir.resolve("nested/e.yaml"), "kind: x.example/a\n");

    CdiSpecFiles.Listing listing = CdiSpecFiles.in(dir);

    assertEquals(
        List.of(
            new CdiSpecFiles.Spec(dir.resolve("a.json"), "x.example/b", Set.of("3")),
            new CdiSpecFiles.Spec(dir.resolve("b.yaml"), "x.example/a", Set.of("one", "two"))),
        listing.specs());
    assertEquals(Map.of(), listing.unreadable());
  }

  @Test
  @DisplayName(
      "a broken or oversized file is unreadable with its reason; names that are not text are no devices")
  void unreadable() throws IOException {
    Files.writeString(dir.resolve("broken.yaml"), "kind: [x");
    Files.write(dir.resolve("huge.json"), new byte[CdiSpecFiles.MAX_BYTES + 1]);
    Files.writeString(
        dir.resolve("odd.json"),
        "{\"kind\":\"x.example/a\",\"devices\":[{\"name\":7},{\"name\":\" \"},{\"name\":\"ok\"}]}");

    CdiSpecFiles.Listing listing = CdiSpecFiles.in(dir);

    assertEquals(
        List.of(new CdiSpecFiles.Spec(dir.resolve("odd.json"), "x.example/a", Set.of("ok"))),
        listing.specs());
    assertEquals(
        Set.of(dir.resolve("broken.yaml"), dir.resolve("huge.json")),
        listing.unreadable().keySet());
    assertTrue(
        listing.unreadable().get(dir.resolve("huge.json")).contains("larger than 4 MiB"),
        listing.unreadable().toString());
  }

  @Test
  @DisplayName("a directory that does not exist holds no specs")
  void missing() {
    CdiSpecFiles.Listing listing = CdiSpecFiles.in(dir.resolve("none"));
    assertEquals(List.of(), listing.specs());
    assertEquals(Map.of(), listing.unreadable());
  }
}
