package dev.tandem.deviceplugin.cni;

import dev.tandem.api.container.DeviceInfo;
import dev.tandem.kit.files.WholeFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The directory Device Information files go to ({@code --device-info-dir}, by default the
 * specification's {@link DeviceInfo#SPEC_DIRECTORY}). Blocking file I/O: call it on a worker
 * thread, or at start before the plugin serves.
 */
public final class DeviceInfoDirectory {

  private static final String SETTING = "--device-info-dir (TANDEM_PLUGIN_DEVICE_INFO_DIR)";

  private final Path dir;

  public DeviceInfoDirectory(Path dir) {
    this.dir = dir;
  }

  public Path path() {
    return dir;
  }

  /**
   * Creates the directory when it is missing (the specification asks the device plugin to), then
   * proves that a file can be created in it.
   *
   * @throws DeviceInfoException naming the directory, the setting, the cause and what to do
   */
  public void prepare() {
    try {
      WholeFile.proveWritable(dir);
    } catch (IOException | UnsupportedOperationException e) {
      throw new DeviceInfoException(
          "the device-info directory "
              + dir
              + " of "
              + SETTING
              + " cannot be written: "
              + WholeFile.why(e)
              + ". Mount the host's "
              + dir
              + " read-write into the device plugin (a hostPath volume of type DirectoryOrCreate,"
              + " as the DaemonSet of manifests/ and the chart do), or set "
              + SETTING
              + " to off to hand no device information to CNI plugins",
          e);
    }
  }

  /** Writes a file whole (daemon-kit's {@link WholeFile}), readable by all. */
  public void write(DeviceInfo info) throws IOException {
    WholeFile.write(dir.resolve(info.fileName()), info.json().getBytes(StandardCharsets.UTF_8));
  }

  /** Removes a file; false when it was not there. */
  public boolean delete(String fileName) throws IOException {
    return Files.deleteIfExists(dir.resolve(fileName));
  }

  /** The names among {@code candidates} that are files in the directory now. */
  public Set<String> present(Set<String> candidates) throws IOException {
    Set<String> out = new HashSet<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.map(p -> p.getFileName().toString()).filter(candidates::contains).forEach(out::add);
    }
    return out;
  }
}
