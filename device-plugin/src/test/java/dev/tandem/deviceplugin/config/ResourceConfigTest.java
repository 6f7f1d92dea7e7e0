package dev.tandem.deviceplugin.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kit.config.InvalidConfigurationException;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("plugin config: modes, defaults, and errors that name the problem")
class ResourceConfigTest {

  @Test
  @DisplayName("{\"mode\":\"hca\"} gives rdma/hca, one device per HCA")
  void hca() {
    ResourceConfig c = ResourceConfig.parse("{\"mode\":\"hca\"}", "cfg.json");
    assertEquals(Mode.HCA, c.mode());
    assertEquals("rdma/hca", c.resourceName());
    assertEquals(1, c.slotsPerHca());
  }

  @Test
  @DisplayName("shared mode defaults to 1000 slots per HCA (rdma/hca: 1k)")
  void shared() {
    assertEquals(1000, ResourceConfig.parse("{\"mode\":\"shared\"}", "f").slotsPerHca());
    assertEquals(
        8, ResourceConfig.parse("{\"mode\":\"shared\",\"slotsPerHca\":8}", "f").slotsPerHca());
  }

  @Test
  @DisplayName("selectors are parsed and normalised (hex ids without 0x, link layer case)")
  void selectors() {
    ResourceConfig c =
        ResourceConfig.parse(
            "{\"mode\":\"sriov\",\"selectors\":{\"vendorIds\":[\"0x15B3\"],"
                + "\"linkLayers\":[\"InfiniBand\"],\"ibDevices\":[\"mlx5_0\"]}}",
            "f");
    assertEquals(List.of("15b3"), c.selectors().vendorIds());
    assertEquals(List.of("infiniband"), c.selectors().linkLayers());
  }

  @Test
  @DisplayName("unknown keys are rejected with their names and the file")
  void unknownKeys() {
    InvalidConfigurationException e =
        assertThrows(
            InvalidConfigurationException.class,
            () ->
                ResourceConfig.parse(
                    "{\"mode\":\"hca\",\"slots\":4,\"colour\":\"red\"}",
                    "/etc/tandem/plugin.json"));
    assertTrue(e.getMessage().contains("/etc/tandem/plugin.json"), e.getMessage());
    assertTrue(e.getMessage().contains("colour, slots"), e.getMessage());
  }

  @Test
  @DisplayName("unknown selector keys, modes and link layers are rejected by name")
  void unknownValues() {
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> ResourceConfig.parse("{\"mode\":\"vf\"}", "f"))
            .getMessage()
            .contains("unknown mode 'vf'; allowed: hca, sriov, shared"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> ResourceConfig.parse("{\"selectors\":{\"pciIds\":[]}}", "f"))
            .getMessage()
            .contains("pciIds"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> ResourceConfig.parse("{\"selectors\":{\"linkLayers\":[\"RoCE\"]}}", "f"))
            .getMessage()
            .contains("RoCE"));
  }

  @Test
  @DisplayName("malformed JSON, wrong types and nonsense values are errors naming the file")
  void malformed() {
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> ResourceConfig.parse("{\"mode\":", "p.json"))
            .getMessage()
            .startsWith("p.json: not a JSON object"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> ResourceConfig.parse("{\"slotsPerHca\":\"many\"}", "p.json"))
            .getMessage()
            .startsWith("p.json"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> ResourceConfig.parse("{\"mode\":\"hca\",\"slotsPerHca\":4}", "p.json"))
            .getMessage()
            .contains("only meaningful in shared mode"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> ResourceConfig.parse("{\"resourceName\":\"hca\"}", "p.json"))
            .getMessage()
            .contains("not an extended resource name"));
  }

  @Test
  @DisplayName(
      "allocateAllDevices: off by default, on in hca and shared mode, refused in sriov mode and"
          + " as a string, naming the file")
  void allocateAllDevices() {
    assertFalse(ResourceConfig.parse("{}", "f").allocateAllDevices());
    assertTrue(
        ResourceConfig.parse("{\"mode\":\"hca\",\"allocateAllDevices\":true}", "f")
            .allocateAllDevices());
    ResourceConfig shared =
        ResourceConfig.parse("{\"mode\":\"shared\",\"allocateAllDevices\":true}", "f");
    assertTrue(shared.withResourceName("rdma/erdma").allocateAllDevices());
    String sriov =
        assertThrows(
                InvalidConfigurationException.class,
                () ->
                    ResourceConfig.parse(
                        "{\"mode\":\"sriov\",\"allocateAllDevices\":true}", "p.json"))
            .getMessage();
    assertTrue(
        sriov.startsWith("p.json: allocateAllDevices is refused in sriov mode")
            && sriov.contains("use mode hca or shared"),
        sriov);
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> ResourceConfig.parse("{\"allocateAllDevices\":\"yes\"}", "p.json"))
            .getMessage()
            .startsWith("p.json: a value has the wrong type"));
  }

  @Test
  @DisplayName(
      "a count is read as exactly the whole number written, or refused naming the key and the file")
  void wholeNumbers() {
    for (String n : new String[] {"1.5", "4294967297", "1e400", "65537", "0"}) {
      String json = "{\"mode\":\"shared\",\"slotsPerHca\":" + n + "}";
      String message =
          assertThrows(
                  InvalidConfigurationException.class, () -> ResourceConfig.parse(json, "p.json"))
              .getMessage();
      assertTrue(message.startsWith("p.json") && message.contains("slotsPerHca"), message);
    }
    assertEquals(
        65_536,
        ResourceConfig.parse("{\"mode\":\"shared\",\"slotsPerHca\":65536}", "p.json")
            .slotsPerHca());
    assertEquals(
        1000,
        ResourceConfig.parse("{\"mode\":\"shared\",\"slotsPerHca\":1e3}", "p.json").slotsPerHca());
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> ResourceConfig.parse("{\"healthCheckSeconds\":2.5}", "p.json"))
            .getMessage()
            .contains("healthCheckSeconds"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> ResourceConfig.parse("{\"gpu\":{\"reservationSeconds\":1e10}}", "p.json"))
            .getMessage()
            .contains("gpu.reservationSeconds"));
  }
}
