package dev.tandem.dra.cdi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tandem.kit.files.HostDirectory;
import dev.tandem.kit.files.HostFileException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The directory the driver writes CDI specs to (by default {@code /var/run/cdi}, which container
 * runtimes read): a daemon-kit {@link HostDirectory}, so a runtime never reads half a spec and
 * every failure is a {@link HostFileException} naming the file and the fix. Blocking file I/O: call
 * it on a worker thread.
 */
public final class CdiDirectory {

  /** Where CDI specs of running claims go by default: runtimes read it, and it is tmpfs. */
  public static final String DEFAULT = "/var/run/cdi";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final HostDirectory dir;

  public CdiDirectory(Path dir) {
    this.dir =
        new HostDirectory(
            dir,
            "CDI spec",
            "Mount the host's "
                + dir
                + " read-write into the driver (a hostPath volume of type DirectoryOrCreate), or"
                + " point the driver at the CDI directory the node's container runtime reads");
  }

  public Path path() {
    return dir.path();
  }

  /**
   * Writes a spec as {@code fileName} whole, readable by all, creating the directory when it is
   * missing; the target is as it was before when this fails.
   */
  public void write(String fileName, CdiSpec spec) {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsString(spec).getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new CdiException("CDI spec " + fileName + " cannot be encoded: " + e.getMessage(), e);
    }
    dir.write(fileName, bytes);
  }

  /** Removes a spec; false when it was not there. */
  public boolean remove(String fileName) {
    return dir.remove(fileName);
  }

  /** Whether a spec of that name is in the directory. */
  public boolean exists(String fileName) {
    return dir.exists(fileName);
  }
}
