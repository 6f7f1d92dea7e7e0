package dev.tandem.dra.cdi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tandem.kit.files.HostDirectory;
import dev.tandem.kit.files.HostFileException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
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
    return Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
        && CdiSpecFiles.spec(file)
            .filter(s -> ClaimSpec.KIND.equals(s.kind()) && s.devices().equals(devices))
            .isPresent();
  }

  /**
   * The other spec files of the directory that define one of {@code devices} under this driver's
   * kind. The CDI library drops a name that two specs of one directory define (a conflict at equal
   * priority), so a container given that name would fail to start.
   */
  public List<String> rivals(String fileName, Set<String> devices) {
    return ours().stream()
        .filter(s -> !s.file().getFileName().toString().equals(fileName))
        .filter(s -> s.devices().stream().anyMatch(devices::contains))
        .map(s -> s.file().getFileName().toString())
        .toList();
  }

  /** The readable specs of this driver's kind in the directory, in name order. */
  private List<CdiSpecFiles.Spec> ours() {
    return CdiSpecFiles.in(dir.path()).specs().stream()
        .filter(s -> ClaimSpec.KIND.equals(s.kind()))
        .toList();
  }
}
