package dev.tandem.deviceplugin.inventory;

import dev.tandem.discovery.HostFile;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads an HCA's port states from sysfs ({@code
 * <root>/sys/class/infiniband/<ibdev>/ports/<n>/state}, e.g. {@code 4: ACTIVE}); a state file that
 * is no sysfs file ({@link HostFile}: too long, not UTF-8) tells nothing. Blocking file I/O: call
 * it from a worker thread.
 */
public final class PortStates implements HealthProbe {

  private final Path root;

  public PortStates(Path root) {
    this.root = root;
  }

  /** Healthy when any port is ACTIVE; empty when sysfs has no port for the device. */
  @Override
  public Optional<Boolean> healthy(String ibDevice) {
    Path ports = root.resolve("sys/class/infiniband").resolve(ibDevice).resolve("ports");
    if (!Files.isDirectory(ports)) {
      return Optional.empty();
    }
    boolean seen = false;
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(ports)) {
      for (Path port : dirs) {
        Path state = port.resolve("state");
        if (Files.isReadable(state)) {
          seen = true;
          if (HostFile.read(state).trim().endsWith("ACTIVE")) {
            return Optional.of(true);
          }
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return seen ? Optional.of(false) : Optional.empty();
  }
}
