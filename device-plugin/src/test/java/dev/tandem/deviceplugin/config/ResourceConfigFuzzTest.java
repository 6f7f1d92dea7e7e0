package dev.tandem.deviceplugin.config;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tandem.kit.config.InvalidConfigurationException;
import java.nio.charset.StandardCharsets;

/**
 * Any config file text either parses or is refused with an {@link InvalidConfigurationException}
 * naming the file; nothing else escapes. Runs its corpus in {@code mvn verify}; {@code
 * benchmarks/run-fuzz} fuzzes it for longer.
 */
class ResourceConfigFuzzTest {

  private static final String WHERE = "/etc/tandem/fuzz.json";

  @FuzzTest(maxDuration = "60s")
  void parseRefusesNamingTheFile(byte[] input) {
    String json = new String(input, StandardCharsets.UTF_8);
    try {
      assertNotNull(ResourceConfig.parse(json, WHERE).mode());
    } catch (InvalidConfigurationException e) {
      assertTrue(e.getMessage().contains(WHERE), e.getMessage());
    }
  }
}
