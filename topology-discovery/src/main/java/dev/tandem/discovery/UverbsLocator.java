package dev.tandem.discovery;

import dev.tandem.topology.model.Machine;
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

  /**
   * The machine with each HCA whose source named no uverbs device (an hwloc export carries none)
   * given the one sysfs shows; HCAs with none there, or with no RDMA driver (no ibverbs name), stay
   * without.
   */
  public Machine withUverbs(Machine m) {
    return new Machine(
        m.nodeName(),
        m.source(),
        m.pcie(),
        m.devices().stream()
            .map(
                d ->
                    d.hca() == null || d.hca().uverbs() != null || d.hca().ibDevice() == null
                        ? d
                        : uverbs(d.hca().ibDevice())
                            .map(
                                u ->
                                    d.toBuilder()
                                        .hca(d.hca().toBuilder().uverbs(u).build())
                                        .build())
                            .orElse(d))
            .toList());
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

  /** The ibverbs name in a uverbs device's {@code ibdev}; null when the file cannot be read. */
  private static String ibdevName(Path ibdev) {
    try {
      return HostFile.read(ibdev).trim();
    } catch (IOException e) {
      return null;
    }
  }

  private Optional<String> byIbdevFile(String ibDevice) {
    Path cls = root.resolve("sys/class/infiniband_verbs");
    if (!Files.isDirectory(cls)) {
      return Optional.empty();
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(cls, "uverbs*")) {
      for (Path p : entries) {
        Path ibdev = p.resolve("ibdev");
        if (Files.isReadable(ibdev) && ibDevice.equals(ibdevName(ibdev))) {
          return Optional.of(p.getFileName().toString());
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
