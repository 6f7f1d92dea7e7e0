package dev.tandem.discovery.nccl;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tandem.discovery.DiscoveryException;
import java.nio.charset.StandardCharsets;

/**
 * Any text given as an NCCL topology file either reads as a machine or is refused with a {@link
 * DiscoveryException} naming the input; nothing else escapes, nothing hangs. Runs its corpus in
 * {@code mvn verify}; {@code benchmarks/run-fuzz} fuzzes it for longer.
 */
class NcclTopoReaderFuzzTest {

  private static final String WHAT = "fuzz-input.xml";

  @FuzzTest(maxDuration = "60s")
  void ncclTopology(byte[] input) {
    String xml = new String(input, StandardCharsets.UTF_8);
    try {
      assertNotNull(NcclTopoReader.read(xml, "fuzz-node", WHAT).machine());
    } catch (DiscoveryException e) {
      assertTrue(e.getMessage().contains(WHAT), e.getMessage());
    }
  }
}
