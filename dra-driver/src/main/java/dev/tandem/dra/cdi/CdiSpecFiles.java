package dev.tandem.dra.cdi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tandem.kit.files.WholeFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The CDI spec files of one directory as container runtimes find them: the CDI library
 * (cncf-tags/container-device-interface {@code pkg/cdi/spec-dirs.go}, {@code scanSpecDirs}) takes
 * the files directly in it whose names end in {@code .json} or {@code .yaml}, skips subdirectories
 * and every other name ({@code .yml} included), and reads JSON and YAML alike. Each file is its
 * kind and device names, or the reason it could not be read (a runtime skips such a file too). The
 * one reader of CDI directories: the driver's own specs' rivals and NVIDIA's specs are both found
 * with it. Blocking file I/O.
 */
final class CdiSpecFiles {

  /**
   * More than any spec on a node holds (NVIDIA's names each GPU's device nodes and mounts: tens of
   * KiB): a larger file is read no further and reported as unreadable.
   */
  static final int MAX_BYTES = 4 << 20;

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** A readable spec file: its kind and the names of the devices it defines, in file order. */
  record Spec(Path file, String kind, Set<String> devices) {}

  /** A directory's spec files in name order, and those that could not be read with the reason. */
  record Listing(List<Spec> specs, Map<Path, String> unreadable) {}

  private CdiSpecFiles() {}

  /**
   * The spec files of {@code dir}; a directory that does not exist has none.
   *
   * @throws CdiException when the directory exists but cannot be listed
   */
  static Listing in(Path dir) {
    List<Spec> specs = new ArrayList<>();
    Map<Path, String> unreadable = new LinkedHashMap<>();
    for (Path file : candidates(dir)) {
      try {
        specs.add(read(file));
      } catch (IOException e) {
        unreadable.put(
            file,
            e instanceof JsonProcessingException j ? j.getOriginalMessage() : WholeFile.why(e));
      }
    }
    return new Listing(specs, unreadable);
  }

  private static List<Path> candidates(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(
              f -> {
                String n = f.getFileName().toString();
                return n.endsWith(".json") || n.endsWith(".yaml");
              })
          .filter(Files::isRegularFile)
          .sorted()
          .toList();
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new CdiException(
          "the CDI directory " + dir + " cannot be read: " + WholeFile.why(e), e);
    }
  }

  /** The file's kind and device names; empty when it cannot be read as a spec. */
  static Optional<Spec> spec(Path file) {
    try {
      return Optional.of(read(file));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static Spec read(Path file) throws IOException {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    }
    if (bytes.length > MAX_BYTES) {
      throw new IOException("larger than " + (MAX_BYTES >> 20) + " MiB, which no CDI spec is");
    }
    JsonNode spec = YAML.readTree(bytes);
    Set<String> devices = new LinkedHashSet<>();
    if (spec == null) {
      return new Spec(file, "", devices);
    }
    for (JsonNode device : spec.path("devices")) {
      JsonNode name = device.path("name");
      if (name.isTextual() && !name.asText().isBlank()) {
        devices.add(name.asText());
      }
    }
    return new Spec(file, spec.path("kind").asText(), devices);
  }
}
