package dev.tandem.extender.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tandem.kit.config.InvalidConfigurationException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Any command line and environment either resolve to a configuration or are refused with a message
 * (the kit's {@link InvalidConfigurationException}), which the daemon prints before exiting 2;
 * nothing else escapes. Runs its corpus in {@code mvn verify}; {@code benchmarks/run-fuzz} fuzzes
 * it for longer.
 */
class ExtenderConfigFuzzTest {

  @FuzzTest(maxDuration = "60s")
  void loadRefusesWithAMessage(FuzzedDataProvider data) {
    String port = data.consumeString(12);
    List<String> args = Arrays.asList(data.consumeRemainingAsString().split("\0", -1));
    try {
      assertNotNull(ExtenderConfig.load(args, Map.of("TANDEM_EXTENDER_PORT", port)));
    } catch (InvalidConfigurationException e) {
      assertFalse(
          e.getMessage() == null || e.getMessage().isBlank(), "a refusal without a message");
    }
  }
}
