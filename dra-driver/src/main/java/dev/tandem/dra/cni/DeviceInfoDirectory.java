package dev.tandem.dra.cni;

import dev.tandem.api.container.DeviceInfo;
import dev.tandem.kit.files.WholeFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The directory Prepare writes a granted VF's Device Information file to ({@code
 * --device-info-dir}, by default the specification's {@link DeviceInfo#SPEC_DIRECTORY}, where
 * Multus, SR-IOV CNI and the RDMA CNI look), the same file the device plugin writes for a VF it
 * grants. Written whole (daemon-kit's {@link WholeFile}), readable by all. Blocking file I/O: call
 * it on a worker thread.
 */
public final class DeviceInfoDirectory {

  private final Path dir;

  public DeviceInfoDirectory(Path dir) {
    this.dir = dir;
  }

  public Path path() {
    return dir;
  }

  /**
   * Writes a file whole, creating the directory when it is missing.
   *
   * @throws DeviceInfoException naming the file, the device, the cause and what to do; the target
   *     is then as it was before
   */
  public void write(DeviceInfo info, String device) {
    Path file = dir.resolve(info.fileName());
    try {
      Files.createDirectories(dir);
      WholeFile.write(file, info.json().getBytes(StandardCharsets.UTF_8));
    } catch (IOException | UnsupportedOperationException e) {
      throw new DeviceInfoException(
          "the device-info file "
              + file
              + " of "
              + device
              + " cannot be written: "
              + WholeFile.why(e)
              + ". Mount the host's "
              + dir
              + " read-write into the driver (a hostPath volume of type DirectoryOrCreate), or point"
              + " --device-info-dir at the directory the node's Multus reads",
          e);
    }
  }

  /** Removes a file; false when it was not there. */
  public boolean remove(String fileName) {
    Path file = dir.resolve(fileName);
    try {
      return Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new DeviceInfoException(
          "the device-info file " + file + " cannot be removed: " + WholeFile.why(e), e);
    }
  }

  /** Whether a file of that name is in the directory. */
  public boolean exists(String fileName) {
    return Files.exists(dir.resolve(fileName));
  }
}
