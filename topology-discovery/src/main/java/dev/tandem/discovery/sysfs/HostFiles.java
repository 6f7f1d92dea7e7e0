package dev.tandem.discovery.sysfs;

import dev.tandem.discovery.HostFile;
import java.io.IOException;
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

  /**
   * The file's first line, trimmed; null when it is absent or unreadable (longer than {@link
   * HostFile#MAX_BYTES} or not UTF-8 included).
   */
  static String firstLine(Path file) {
    List<String> lines = read(file);
    return lines == null ? null : lines.isEmpty() ? "" : lines.get(0).trim();
  }

  /** The file's lines; null when it is absent or unreadable. */
  private static List<String> read(Path file) {
    try {
      return HostFile.read(file).lines().toList();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The file's lines; none when it is absent or unreadable. */
  static List<String> lines(Path file) {
    List<String> lines = read(file);
    return lines == null ? List.of() : lines;
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
