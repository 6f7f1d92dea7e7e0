package dev.tandem.deviceplugin.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.sun.management.ThreadMXBean;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.topology.model.Machine;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Timeout;

/**
 * Any config file text either parses or is refused with an {@link InvalidConfigurationException}
 * naming the file; nothing else escapes. The byte-level target mutates real files; the structured
 * one draws files from {@link HostileConfigs} (deep nesting, huge arrays and strings, numbers at
 * and past the extremes) and also checks that a count given as a number is read as exactly that
 * number or refused, and that the devices of an accepted file fit in {@link #MAX_ALLOCATED} bytes.
 * Runs its corpus in {@code mvn verify}; {@code benchmarks/run-fuzz} fuzzes it for longer.
 */
class ResourceConfigFuzzTest {

  private static final String WHERE = "/etc/tandem/fuzz.json";

  /** The most the inventory of an accepted file may allocate on a two-HCA node. */
  static final long MAX_ALLOCATED = 256L << 20;

  private static final Machine NODE = TestMachines.twoSockets("n1");

  @FuzzTest(maxDuration = "60s")
  void parseRefusesNamingTheFile(byte[] input) {
    String json = new String(input, StandardCharsets.UTF_8);
    try {
      assertNotNull(ResourceConfig.parse(json, WHERE).mode());
    } catch (InvalidConfigurationException e) {
      assertTrue(e.getMessage().contains(WHERE), e.getMessage());
    }
  }

  @FuzzTest(maxDuration = "60s")
  @Timeout(60)
  void structuredRefusesOrReadsExactly(FuzzedDataProvider data) {
    HostileConfigs.Drawn file = HostileConfigs.draw(data);
    ResourceConfig config;
    try {
      config = ResourceConfig.parse(file.json(), WHERE);
    } catch (InvalidConfigurationException e) {
      assertTrue(e.getMessage().contains(WHERE), e.getMessage());
      return;
    }
    exactly(file.slotsPerHca(), config.slotsPerHca(), "slotsPerHca");
    exactly(file.healthCheckSeconds(), config.healthInterval().toSeconds(), "healthCheckSeconds");
    long before = allocated();
    Inventory.of(NODE, config);
    long allocated = allocated() - before;
    assertTrue(
        allocated <= MAX_ALLOCATED,
        () ->
            "the inventory took "
                + (allocated >> 20)
                + " MiB for slotsPerHca "
                + file.slotsPerHca());
  }

  /** A number given in the file is the value read, or the file is refused. */
  private static void exactly(String literal, long read, String key) {
    if (literal == null || literal.equals("null")) {
      return;
    }
    BigDecimal given;
    try {
      given = new BigDecimal(literal);
    } catch (NumberFormatException notANumber) {
      throw new AssertionError(key + " " + literal + " was accepted as " + read);
    }
    assertEquals(
        0, given.compareTo(BigDecimal.valueOf(read)), key + " " + literal + " read as " + read);
  }

  private static long allocated() {
    return ((ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }
}
