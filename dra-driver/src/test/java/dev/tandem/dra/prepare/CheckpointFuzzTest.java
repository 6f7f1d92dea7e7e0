package dev.tandem.dra.prepare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tandem.dra.cdi.ClaimSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Any bytes found as the checkpoint file either open as claims a restarted driver can act on (a
 * UID, its own spec name, devices with pool and name) or are refused with a {@link
 * CheckpointException} naming the file; nothing else escapes. Runs its corpus in {@code mvn
 * verify}; {@code benchmarks/run-fuzz} fuzzes it for longer.
 */
class CheckpointFuzzTest {

  private static final Path FILE = file();

  private static Path file() {
    try {
      Path dir = Files.createTempDirectory("checkpoint-fuzz");
      dir.toFile().deleteOnExit();
      return dir.resolve("checkpoint.json");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FuzzTest(maxDuration = "60s")
  void checkpoint(byte[] input) throws IOException {
    Files.write(FILE, input);
    try {
      for (PreparedClaim claim : Checkpoint.open(FILE).claims()) {
        assertTrue(ClaimRef.isUid(claim.uid()), claim.uid());
        if (claim.cdiSpec() != null) {
          assertEquals(ClaimSpec.fileName(claim.uid()), claim.cdiSpec());
        }
        claim.devices().forEach(d -> assertTrue(d.pool() != null && d.device() != null));
      }
    } catch (CheckpointException e) {
      assertTrue(e.getMessage().contains(FILE.toString()), e.getMessage());
    }
  }
}
