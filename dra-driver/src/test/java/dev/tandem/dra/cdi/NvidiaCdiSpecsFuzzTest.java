package dev.tandem.dra.cdi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Any bytes found as a YAML spec in a CDI directory either read as GPU names (none blank) or are
 * skipped and named in the start-up error; nothing else escapes the check joint mode runs at start.
 * Runs its corpus in {@code mvn verify}; {@code benchmarks/run-fuzz} fuzzes it for longer.
 */
class NvidiaCdiSpecsFuzzTest {

  private static final Path DIR = directory();
  private static final List<Device> GPUS = TestMachines.gpusOnRootPorts("n1").gpus();

  private static Path directory() {
    try {
      Path dir = Files.createTempDirectory("cdi-fuzz");
      dir.toFile().deleteOnExit();
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FuzzTest(maxDuration = "60s")
  void gpuSpec(byte[] input) throws IOException {
    Files.write(DIR.resolve("nvidia.yaml"), input);
    NvidiaCdiSpecs.gpuNames(List.of(DIR)).forEach(n -> assertFalse(n.isBlank()));
    try {
      NvidiaCdiSpecs.requireAll(GPUS, List.of(DIR));
    } catch (CdiException e) {
      assertTrue(e.getMessage().contains("nvidia-ctk cdi generate"), e.getMessage());
    }
  }
}
