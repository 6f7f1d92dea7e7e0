package dev.tandem.dra.prepare;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tandem.api.container.DeviceInfo;
import dev.tandem.dra.cdi.ClaimSpec;
import dev.tandem.kit.files.WholeFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The claims the driver has prepared, kept in a JSON file ({@code {"version":1,"claims":[…]}})
 * written whole on every change, so that a restarted driver answers Prepare again with what it
 * answered and undoes on Unprepare what it did. Not thread-safe: the {@link Preparer} calls it
 * under its lock. Blocking file I/O.
 */
public final class Checkpoint {

  /** The version of the file's format; a file of another version is refused. */
  public static final int VERSION = 1;

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final Path file;
  private final Map<String, PreparedClaim> claims;

  private Checkpoint(Path file, Map<String, PreparedClaim> claims) {
    this.file = file;
    this.claims = claims;
  }

  /** The file's JSON. */
  record Contents(
      @JsonProperty("version") int version, @JsonProperty("claims") List<PreparedClaim> claims) {}

  /**
   * Reads the checkpoint at {@code file}; none there is an empty one.
   *
   * @throws CheckpointException naming the file when it cannot be read or is not a checkpoint of
   *     this version
   */
  public static Checkpoint open(Path file) {
    Map<String, PreparedClaim> claims = new LinkedHashMap<>();
    try {
      Contents c = JSON.readValue(Files.readAllBytes(file), Contents.class);
      if (c == null) {
        throw new CheckpointException("the checkpoint " + file + " holds no object" + only());
      }
      if (c.version() != VERSION) {
        throw new CheckpointException(
            "the checkpoint "
                + file
                + " is of version "
                + c.version()
                + ", and this driver reads version "
                + VERSION
                + only());
      }
      if (c.claims() != null) {
        for (PreparedClaim p : c.claims()) {
          String bad = invalid(p);
          if (bad != null) {
            throw new CheckpointException("the checkpoint " + file + " holds " + bad + only());
          }
          claims.put(p.uid(), p);
        }
      }
    } catch (NoSuchFileException e) {
      // no claim prepared yet
    } catch (IOException e) {
      throw new CheckpointException(
          "the checkpoint " + file + " cannot be read: " + WholeFile.why(e) + only(), e);
    }
    return new Checkpoint(file, claims);
  }

  /** What is wrong with an entry, or null: a restarted driver must be able to act on each. */
  private static String invalid(PreparedClaim p) {
    if (p == null || p.uid() == null) {
      return "an entry without a claim UID";
    }
    if (!ClaimRef.isUid(p.uid())) {
      return "an entry whose claim UID '" + p.uid() + "' is not a Kubernetes UID";
    }
    if (p.cdiSpec() != null && !p.cdiSpec().equals(ClaimSpec.fileName(p.uid()))) {
      return "claim "
          + p.uid()
          + " with CDI spec '"
          + p.cdiSpec()
          + "', where this driver names it "
          + ClaimSpec.fileName(p.uid());
    }
    for (String info : p.deviceInfo()) {
      if (!DeviceInfo.isFileName(info)) {
        return "claim "
            + p.uid()
            + " with Device Information file '"
            + info
            + "', which is not a file name this driver writes";
      }
    }
    for (PreparedDevice d : p.devices()) {
      if (d == null || d.pool() == null || d.device() == null) {
        return "claim " + p.uid() + " with a device without pool or name";
      }
    }
    return null;
  }

  private static String only() {
    return ". Move it aside to start with none: claims prepared before are then unprepared by"
        + " their CDI spec's name only";
  }

  public Optional<PreparedClaim> get(String uid) {
    return Optional.ofNullable(claims.get(uid));
  }

  /** The prepared claims, in the order they were prepared. */
  public List<PreparedClaim> claims() {
    return List.copyOf(claims.values());
  }

  /**
   * Records a prepared claim, on disk before it returns.
   *
   * @throws CheckpointException when the file cannot be written; the checkpoint is then unchanged
   */
  public void put(PreparedClaim claim) {
    PreparedClaim before = claims.put(claim.uid(), claim);
    try {
      save();
    } catch (CheckpointException e) {
      if (before == null) {
        claims.remove(claim.uid());
      } else {
        claims.put(claim.uid(), before);
      }
      throw e;
    }
  }

  /** Forgets a claim, on disk before it returns; false when it was not recorded. */
  public boolean remove(String uid) {
    PreparedClaim before = claims.remove(uid);
    if (before == null) {
      return false;
    }
    try {
      save();
    } catch (CheckpointException e) {
      claims.put(uid, before);
      throw e;
    }
    return true;
  }

  private void save() {
    try {
      byte[] bytes =
          JSON.writeValueAsBytes(new Contents(VERSION, new ArrayList<>(claims.values())));
      WholeFile.write(file, bytes);
    } catch (IOException | UnsupportedOperationException e) {
      throw new CheckpointException(
          "the checkpoint "
              + file
              + " cannot be written: "
              + WholeFile.why(e)
              + "; the driver's state directory must be writable (a hostPath volume)",
          e);
    }
  }
}
