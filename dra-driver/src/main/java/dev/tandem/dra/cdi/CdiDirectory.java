package dev.tandem.dra.cdi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tandem.kit.files.WholeFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The directory the driver writes CDI specs to (by default {@code /var/run/cdi}, which container
 * runtimes read). Specs are written whole or not at all (daemon-kit's {@link WholeFile}), so a
 * runtime never reads half a spec. Blocking file I/O: call it on a worker thread.
 */
public final class CdiDirectory {

  /** Where CDI specs of running claims go by default: runtimes read it, and it is tmpfs. */
  public static final String DEFAULT = "/var/run/cdi";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final Path dir;

  public CdiDirectory(Path dir) {
    this.dir = dir;
  }

  public Path path() {
    return dir;
  }

  /**
   * Creates the directory when it is missing, then proves that a file can be created in it.
   *
   * @throws CdiException naming the directory, the cause and what to do
   */
  public void prepare() {
    try {
      WholeFile.proveWritable(dir);
    } catch (IOException | UnsupportedOperationException e) {
      throw new CdiException(
          "the CDI directory " + dir + " cannot be written: " + WholeFile.why(e) + fix(), e);
    }
  }

  /**
   * Writes a spec as {@code fileName} whole, readable by all, creating the directory when it is
   * missing.
   *
   * @throws CdiException naming the file and the cause; the target is then as it was before
   */
  public void write(String fileName, CdiSpec spec) {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsString(spec).getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new CdiException("CDI spec " + fileName + " cannot be encoded: " + e.getMessage(), e);
    }
    try {
      Files.createDirectories(dir);
      WholeFile.write(dir.resolve(fileName), bytes);
    } catch (IOException | UnsupportedOperationException e) {
      throw new CdiException(
          "the CDI spec "
              + dir.resolve(fileName)
              + " cannot be written: "
              + WholeFile.why(e)
              + fix(),
          e);
    }
  }

  private String fix() {
    return ". Mount the host's "
        + dir
        + " read-write into the driver (a hostPath volume of type DirectoryOrCreate), or point the"
        + " driver at the CDI directory the node's container runtime reads";
  }

  /** Removes a spec; false when it was not there. */
  public boolean remove(String fileName) {
    try {
      return Files.deleteIfExists(dir.resolve(fileName));
    } catch (IOException e) {
      throw new CdiException(
          "CDI spec " + dir.resolve(fileName) + " cannot be removed: " + WholeFile.why(e), e);
    }
  }

  /** Whether a spec of that name is in the directory. */
  public boolean exists(String fileName) {
    return Files.exists(dir.resolve(fileName));
  }
}
