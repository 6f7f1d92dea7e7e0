package dev.tandem.deviceplugin.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kit.config.InvalidConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("joint-mode config: the gpu key, its defaults, and unknown keys inside it named")
class GpuConfigTest {

  @Test
  @DisplayName("no gpu key: joint mode off")
  void off() {
    assertFalse(ResourceConfig.parse("{}", "f").gpu().enabled());
    assertFalse(ResourceConfig.DEFAULT.gpu().enabled());
  }

  @Test
  @DisplayName(
      "hint mode reads a renamed GPU resource from gpu.resourceName without serving it; a name the API server refuses is refused")
  void renamedWithoutJointMode() {
    GpuConfig g =
        ResourceConfig.parse("{\"gpu\":{\"resourceName\":\"example.com/gpu\"}}", "f").gpu();
    assertFalse(g.enabled());
    assertEquals("example.com/gpu", g.resourceName());
    InvalidConfigurationException e =
        assertThrows(
            InvalidConfigurationException.class,
            () -> ResourceConfig.parse("{\"gpu\":{\"resourceName\":\"kubernetes.io/gpu\"}}", "f"));
    assertTrue(
        e.getMessage()
            .contains("gpu.resourceName 'kubernetes.io/gpu' is in the kubernetes.io domain"),
        e.getMessage());
  }

  @Test
  @DisplayName("{\"gpu\":{\"enabled\":true}} serves nvidia.com/gpu, env only, 30 s reservations")
  void enabled() {
    GpuConfig g = ResourceConfig.parse("{\"mode\":\"hca\",\"gpu\":{\"enabled\":true}}", "f").gpu();
    assertTrue(g.enabled());
    assertFalse(g.cdi());
    assertEquals("nvidia.com/gpu", g.resourceName());
    assertEquals(Duration.ofSeconds(30), g.reservation());
  }

  @Test
  @DisplayName("cdi, resourceName and reservationSeconds are read")
  void options() {
    GpuConfig g =
        ResourceConfig.parse(
                "{\"gpu\":{\"enabled\":true,\"cdi\":true,\"resourceName\":\"example.com/gpu\","
                    + "\"reservationSeconds\":5}}",
                "f")
            .gpu();
    assertTrue(g.cdi());
    assertEquals("example.com/gpu", g.resourceName());
    assertEquals(Duration.ofSeconds(5), g.reservation());
  }

  @Test
  @DisplayName("an unknown key inside gpu is rejected by name, with the file and the allowed keys")
  void unknownKey() {
    InvalidConfigurationException e =
        assertThrows(
            InvalidConfigurationException.class,
            () ->
                ResourceConfig.parse(
                    "{\"gpu\":{\"enabled\":true,\"strategy\":\"cdi\"}}", "dp.json"));
    assertTrue(
        e.getMessage().contains("dp.json gpu")
            && e.getMessage().contains("strategy")
            && e.getMessage().contains("reservationSeconds"),
        e.getMessage());
  }

  @Test
  @DisplayName(
      "wrong types and values are named: enabled not a boolean, reservationSeconds 0, same resource twice")
  void badValues() {
    assertThrows(
        InvalidConfigurationException.class,
        () -> ResourceConfig.parse("{\"gpu\":{\"enabled\":\"yes\"}}", "f"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> ResourceConfig.parse("{\"gpu\":{\"reservationSeconds\":0}}", "f"))
            .getMessage()
            .contains("reservationSeconds"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () ->
                    ResourceConfig.parse(
                        "{\"resourceName\":\"nvidia.com/gpu\",\"gpu\":{\"enabled\":true}}", "f"))
            .getMessage()
            .contains("must differ"));
  }
}
