package dev.tandem.discovery.sysfs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Reads host files under a root directory ({@code /} on a node, a captured tree in tests). */
final class HostFiles {

  private final Path root;

  HostFiles(Path root) {
    this.root = root;
  }

  Path root() {
    return root;
  }

  /** A host path ({@code /sys/...}) under the root. */
  Path host(String absolute) {
    return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
  }

  /** The file's first line, trimmed; null when it is absent or unreadable. */
  static String firstLine(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return lines.isEmpty() ? "" : lines.get(0).trim();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }

  /** Entry names of a directory, sorted; empty when it is absent. */
  static List<Path> list(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  /**
   * Follows a symbolic link the way the kernel would under this root: relative targets resolve
   * against the link's directory, absolute ones against the root. Returns the path itself when it
   * is not a link, null when it does not exist.
   */
  Path follow(Path link) {
    Path at = link;
    for (int hops = 0; hops < 40; hops++) {
      try {
        if (!Files.isSymbolicLink(at)) {
          return Files.exists(at) ? at.toRealPath() : null;
        }
        Path target = Files.readSymbolicLink(at);
        at =
            target.isAbsolute()
                ? host(target.toString())
                : at.getParent().toRealPath().resolve(target);
        at = at.normalize();
      } catch (IOException e) {
        return null;
      }
    }
    return null;
  }

  /**
   * The path's components below the root, e.g. {@code [sys, devices, pci0000:00, 0000:00:01.0]}.
   */
  List<String> components(Path p) {
    Path base;
    try {
      base = root.toRealPath();
    } catch (IOException e) {
      base = root.toAbsolutePath().normalize();
    }
    Path rel = base.relativize(p.toAbsolutePath().normalize());
    List<String> out = new ArrayList<>();
    rel.forEach(c -> out.add(c.toString()));
    return out;
  }
}
