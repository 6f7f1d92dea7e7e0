package dev.tandem.deviceplugin.inventory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the uverbs character device of an HCA in sysfs: the {@code uverbsN} entry of {@code
 * <root>/sys/class/infiniband/<ibdev>/device/infiniband_verbs/}, else the {@code
 * <root>/sys/class/infiniband_verbs/uverbsN} whose {@code ibdev} file names the HCA. Blocking file
 * I/O: call it from a worker thread.
 */
public final class UverbsLocator {

  private final Path root;

  public UverbsLocator(Path root) {
    this.root = root;
  }

  public Optional<String> uverbs(String ibDevice) {
    Path verbs =
        root.resolve("sys/class/infiniband").resolve(ibDevice).resolve("device/infiniband_verbs");
    Optional<String> direct = firstUverbs(verbs);
    return direct.isPresent() ? direct : byIbdevFile(ibDevice);
  }

  private Optional<String> firstUverbs(Path dir) {
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "uverbs*")) {
      for (Path p : entries) {
        return Optional.of(p.getFileName().toString());
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  private Optional<String> byIbdevFile(String ibDevice) {
    Path cls = root.resolve("sys/class/infiniband_verbs");
    if (!Files.isDirectory(cls)) {
      return Optional.empty();
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(cls, "uverbs*")) {
      for (Path p : entries) {
        Path ibdev = p.resolve("ibdev");
        if (Files.isReadable(ibdev) && Files.readString(ibdev).trim().equals(ibDevice)) {
          return Optional.of(p.getFileName().toString());
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
