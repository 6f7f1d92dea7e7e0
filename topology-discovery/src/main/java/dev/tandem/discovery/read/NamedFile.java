package dev.tandem.discovery.read;

import dev.tandem.discovery.DiscoveryException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a file the operator named, with errors that name it, what it was for and the reason. */
public final class NamedFile {

  private NamedFile() {}

  /**
   * @param what what the file is, e.g. "hwloc XML file"
   */
  public static byte[] bytes(Path file, String what) {
    if (!Files.exists(file)) {
      throw new DiscoveryException(what + " " + file + " does not exist");
    }
    if (Files.isDirectory(file)) {
      throw new DiscoveryException(what + " " + file + " is a directory, not a file");
    }
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new DiscoveryException(what + " " + file + " cannot be read: " + e.getMessage(), e);
    }
  }

  public static String text(Path file, String what) {
    return new String(bytes(file, what), StandardCharsets.UTF_8);
  }
}
