package dev.tandem.extender.manifests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The YAML files under the repository's manifests/ directory, split into documents. */
final class ManifestFiles {

  static final Path ROOT = locate();
  private static final YAMLMapper YAML = new YAMLMapper();

  private ManifestFiles() {}

  /** One YAML document of one file. */
  record Document(Path file, int index, JsonNode node) {
    String kind() {
      return node.path("kind").asText();
    }

    String name() {
      return node.path("metadata").path("name").asText();
    }

    @Override
    public String toString() {
      return ROOT.relativize(file) + "#" + index + " (" + kind() + " " + name() + ")";
    }
  }

  static List<Path> yamlFiles() {
    try (Stream<Path> s = Files.walk(ROOT)) {
      return s.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
          .filter(p -> !p.startsWith(ROOT.resolve("check")))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<Document> documents(Path file) {
    List<Document> out = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
      int i = 0;
      while (it.hasNext()) {
        JsonNode n = it.next();
        if (n != null && !n.isNull() && !n.isMissingNode() && !n.isEmpty()) {
          out.add(new Document(file, i, n));
        }
        i++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot parse " + file, e);
    }
    return out;
  }

  static List<Document> allDocuments() {
    return yamlFiles().stream().flatMap(f -> documents(f).stream()).toList();
  }

  static Document single(String relative) {
    List<Document> docs = documents(ROOT.resolve(relative));
    if (docs.size() != 1) {
      throw new AssertionError(relative + " holds " + docs.size() + " documents, expected 1");
    }
    return docs.get(0);
  }

  private static Path locate() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("manifests/base"))) {
        return p.resolve("manifests");
      }
    }
    throw new IllegalStateException("no manifests/base above " + Path.of("").toAbsolutePath());
  }
}
