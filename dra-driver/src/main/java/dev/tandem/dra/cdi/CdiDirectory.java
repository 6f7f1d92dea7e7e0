package dev.tandem.dra.cdi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tandem.kit.files.HostDirectory;
import dev.tandem.kit.files.HostFileException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

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

  /** Larger than any spec this driver writes (32 devices): a larger file is not one of them. */
  private static final long MAX_SPEC_BYTES = 1L << 20;

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

  /**
   * Whether the file of that name is a spec of this driver's kind ({@link ClaimSpec#KIND}) defining
   * exactly {@code devices}: a regular file, not a link, a directory or another program's spec put
   * under this name (Prepare then writes it again).
   */
  public boolean holds(String fileName, Set<String> devices) {
    Path file = dir.path().resolve(fileName);
    try {
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
          || Files.size(file) > MAX_SPEC_BYTES) {
        return false;
      }
      JsonNode spec = JSON.readTree(Files.readAllBytes(file));
      Set<String> named = new HashSet<>();
      spec.path("devices").forEach(d -> named.add(d.path("name").asText()));
      return ClaimSpec.KIND.equals(spec.path("kind").asText()) && named.equals(devices);
    } catch (IOException e) {
      return false; // unreadable or not JSON: not the spec this driver wrote
    }
  }
}
