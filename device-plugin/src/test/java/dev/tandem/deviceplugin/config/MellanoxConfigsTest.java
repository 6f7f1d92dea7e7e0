package dev.tandem.deviceplugin.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kit.config.InvalidConfigurationException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the Mellanox RDMA plugins' config files, read as they are")
class MellanoxConfigsTest {

  private static final String SRIOV_PATH = "/k8s-rdma-sriov-dev-plugin/config.json";
  private static final String SHARED_PATH = "/k8s-rdma-shared-dev-plugin/config.json";

  @Test
  @DisplayName(
      "k8s-rdma-sriov-dev-plugin sriov mode: one device per VF of the named PFs, rdma/vhca")
  void sriovPluginSriovMode() {
    ResourceConfig c =
        ResourceConfig.parse(
            "{\"mode\" : \"sriov\", \"pfNetdevices\": [ \"eth0\" , \"eth1\" ]}", "/etc/x.json");
    assertEquals(Mode.SRIOV, c.mode());
    assertEquals("rdma/vhca", c.resourceName());
    assertEquals(List.of("eth0", "eth1"), c.selectors().pfNetdevs());
    assertEquals(List.of(), c.selectors().netdevs());
  }

  @Test
  @DisplayName(
      "k8s-rdma-sriov-dev-plugin hca mode (recognised by its path): its rdma/hca pool becomes"
          + " 1000 shared slots per HCA")
  void sriovPluginHcaMode() {
    ResourceConfig c = ResourceConfig.parse("{\"mode\" : \"hca\"}", SRIOV_PATH);
    assertEquals(Mode.SHARED, c.mode());
    assertEquals("rdma/hca", c.resourceName());
    assertEquals(1000, c.slotsPerHca());
    assertEquals(
        Mode.HCA,
        ResourceConfig.parse("{\"mode\":\"hca\"}", "/etc/tandem/device-plugin.json").mode(),
        "elsewhere {\"mode\":\"hca\"} keeps Tandem's meaning, one device per HCA");
  }

  @Test
  @DisplayName(
      "k8s-rdma-sriov-dev-plugin keys that have no Tandem meaning are refused with the fix")
  void sriovPluginRefusals() {
    assertRefused(
        "{\"mode\":\"sriov\",\"pfNetdevices\":[\"eth0\"],\"pfMaxBandwidth\":[10000]}",
        "pfMaxBandwidth [10000] cannot be mapped",
        "max_tx_rate");
    assertRefused("{\"pfNetdevices\":[\"eth0\"]}", "mode 'null' is not one of hca, sriov");
    assertRefused(
        "{\"mode\":\"sriov\",\"pfNetdevices\":[\"eth0\"],\"slotsPerHca\":2}",
        "also has slotsPerHca",
        "selectors.pfNetdevs");
  }

  @Test
  @DisplayName(
      "k8s-rdma-shared-dev-plugin: one configList entry becomes shared mode; names, selectors,"
          + " link types and the update interval mapped")
  void sharedPlugin() {
    ResourceConfig c =
        ResourceConfig.parse(
            "{\"kubeletRootDir\": \"/var/lib/kubelet\", \"periodicUpdateInterval\": 300,"
                + " \"configList\": [{\"resourceName\": \"hca_shared_devices_b\","
                + " \"rdmaHcaMax\": 500, \"selectors\": {\"vendors\": [\"15b3\"],"
                + " \"deviceIDs\": [\"1017\"], \"ifNames\": [\"ib3\", \"ib4\"],"
                + " \"linkTypes\": [\"infiniband\"]}}]}",
            SHARED_PATH);
    assertEquals(Mode.SHARED, c.mode());
    assertEquals("rdma/hca_shared_devices_b", c.resourceName());
    assertEquals(500, c.slotsPerHca());
    assertEquals(Duration.ofSeconds(300), c.healthInterval());
    assertEquals(
        new Selectors(
            List.of("15b3"),
            List.of("1017"),
            List.of("InfiniBand"),
            List.of(),
            List.of("ib3", "ib4"),
            List.of()),
        c.selectors());
    ResourceConfig devices =
        ResourceConfig.parse(
            "{\"configList\":[{\"resourceName\":\"a\",\"rdmaHcaMax\":1000,"
                + "\"devices\":[\"ib0\",\"ib1\"]}]}",
            SHARED_PATH);
    assertEquals(List.of("ib0", "ib1"), devices.selectors().netdevs());
  }

  @Test
  @DisplayName("k8s-rdma-shared-dev-plugin settings Tandem cannot honour are refused with the fix")
  void sharedPluginRefusals() {
    assertRefused(
        "{\"configList\":[{\"resourceName\":\"a\"},{\"resourceName\":\"b\"}]}",
        "configList has 2 entries",
        "one RDMA resource per node");
    assertRefused(
        "{\"configList\":[{\"resourceName\":\"a\",\"selectors\":{\"drivers\":[\"mlx5_core\"]}}]}",
        "selectors.drivers cannot be mapped",
        "vendors");
    assertRefused(
        "{\"kubeletRootDir\":\"/data/kubelet\",\"configList\":[{\"resourceName\":\"a\"}]}",
        "--plugin-dir /data/kubelet/device-plugins");
    assertRefused(
        "{\"configList\":[{\"resourceName\":\"a\",\"selectors\":{\"linkTypes\":[\"eth\"]}}]}",
        "linkTypes 'eth' is not one of ether, infiniband");
    assertRefused(
        "{\"configList\":[{\"resourceName\":\"a\",\"rdmaHcaMax\":0}]}",
        "rdmaHcaMax must be at least 1");
    assertRefused(
        "{\"configList\":[{\"resourceName\":\"a\",\"devices\":[\"ib0\"],"
            + "\"selectors\":{\"vendors\":[\"15b3\"]}}]}",
        "both devices and selectors");
    assertRefused(
        "{\"configList\":[{\"resourceName\":\"a\",\"selectors\":{\"pciAddresses\":[\"x\"]}}]}",
        "configList[0].selectors: unknown key pciAddresses; allowed: deviceIDs, drivers");
  }

  private static void assertRefused(String json, String... parts) {
    InvalidConfigurationException e =
        assertThrows(
            InvalidConfigurationException.class, () -> ResourceConfig.parse(json, SHARED_PATH));
    assertTrue(e.getMessage().startsWith(SHARED_PATH + ": "), e.getMessage());
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), e.getMessage());
    }
  }
}
