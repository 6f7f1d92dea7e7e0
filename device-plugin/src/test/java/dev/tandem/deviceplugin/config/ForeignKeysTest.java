package dev.tandem.deviceplugin.config;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kit.config.InvalidConfigurationException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

@DisplayName("another plugin's key in Tandem's file is refused naming that plugin and Tandem's key")
class ForeignKeysTest {

  private static final String FILE = "/etc/tandem/device-plugin/config.json";
  private static final String SRIOV = "sriov-network-device-plugin";
  private static final String SHARED = "k8s-rdma-shared-dev-plugin";

  /** One case per row of the table: the file, then what the refusal must say. */
  private record Case(String path, String json, String plugin, String instead) {}

  private static final List<Case> CASES =
      List.of(
          new Case(
              "resourceList",
              "{\"resourceList\":[{\"resourceName\":\"mlnx_sriov_rdma\"}]}",
              SRIOV,
              "write its resourceName"),
          new Case(
              "resourcePrefix",
              "{\"resourcePrefix\":\"rdma\",\"resourceName\":\"rdma/hca\"}",
              SRIOV,
              "\"<prefix>/<name>\""),
          new Case("deviceType", "{\"deviceType\":\"netDevice\"}", SRIOV, "\"mode\": \"sriov\""),
          new Case("excludeTopology", "{\"excludeTopology\":true}", SRIOV, "NUMA node"),
          new Case("additionalInfo", "{\"additionalInfo\":{}}", SRIOV, "--device-info-dir"),
          new Case("isRdma", "{\"mode\":\"sriov\",\"isRdma\":true}", SRIOV, "RDMA driver"),
          new Case("rdmaHcaMax", "{\"rdmaHcaMax\":1000}", SHARED, "\"slotsPerHca\""),
          new Case("devices", "{\"devices\":[\"ib0\"]}", SHARED, "selectors.netdevs"),
          new Case(
              "periodicUpdateInterval",
              "{\"periodicUpdateInterval\":60}",
              SHARED,
              "healthCheckSeconds"),
          new Case("kubeletRootDir", "{\"kubeletRootDir\":\"/data\"}", SHARED, "--plugin-dir"),
          new Case(
              "selectors.vendors",
              "{\"selectors\":{\"vendors\":[\"15b3\"]}}",
              SRIOV,
              "selectors.vendorIds"),
          new Case(
              "selectors.devices",
              "{\"selectors\":{\"devices\":[\"101b\"]}}",
              SRIOV,
              "selectors.deviceIds"),
          new Case(
              "selectors.deviceIDs",
              "{\"selectors\":{\"deviceIDs\":[\"101b\"]}}",
              SHARED,
              "selectors.deviceIds"),
          new Case(
              "selectors.drivers",
              "{\"selectors\":{\"drivers\":[\"mlx5_core\"]}}",
              SRIOV,
              "selectors.vendorIds and selectors.deviceIds"),
          new Case(
              "selectors.pfNames",
              "{\"mode\":\"sriov\",\"selectors\":{\"pfNames\":[\"ens1f0\"]}}",
              SRIOV,
              "selectors.pfNetdevs"),
          new Case(
              "selectors.rootDevices",
              "{\"selectors\":{\"rootDevices\":[\"0000:4b:00.0\"]}}",
              SRIOV,
              "selectors.pfNetdevs"),
          new Case(
              "selectors.pciAddresses",
              "{\"selectors\":{\"pciAddresses\":[\"0000:4b:00.2\"]}}",
              SRIOV,
              "selectors.ibDevices"),
          new Case(
              "selectors.linkTypes",
              "{\"selectors\":{\"linkTypes\":[\"ether\"]}}",
              SHARED,
              "selectors.linkLayers"),
          new Case(
              "selectors.ifNames",
              "{\"selectors\":{\"ifNames\":[\"ib0\"]}}",
              SHARED,
              "selectors.netdevs"),
          new Case("selectors.isRdma", "{\"selectors\":{\"isRdma\":true}}", SRIOV, "RDMA driver"),
          new Case(
              "selectors.needVhostNet",
              "{\"selectors\":{\"needVhostNet\":true}}",
              SRIOV,
              "/dev/vhost-net"));

  @Test
  @DisplayName("every row: the file, the key's path, the plugin it belongs to and what to write")
  void everyRow() {
    assertAll(
        CASES.stream()
            .map(
                c ->
                    (Executable)
                        () -> {
                          String m = refusal(c.json());
                          assertTrue(m.startsWith(FILE), m);
                          assertTrue(m.contains(c.path() + " is a key of "), m);
                          assertTrue(m.contains(c.plugin()), m);
                          assertTrue(m.contains(", not Tandem's; instead: "), m);
                          assertTrue(m.contains(c.instead()), m);
                        }));
  }

  @Test
  @DisplayName("the cases cover the table exactly: a new row needs its case")
  void coverage() {
    assertEquals(
        new TreeSet<>(ForeignKeys.TABLE.keySet()),
        CASES.stream().map(Case::path).collect(Collectors.toCollection(TreeSet::new)));
  }

  @Test
  @DisplayName(
      "a whole sriov-network-device-plugin file names its resourceList; keys no plugin has keep"
          + " the list of allowed keys; a bare resource name says the prefix to write")
  void otherShapes() {
    String whole =
        refusal(
            "{\"resourceList\":[{\"resourceName\":\"mlnx_rdma\",\"resourcePrefix\":\"nvidia.com\","
                + "\"selectors\":{\"vendors\":[\"15b3\"],\"isRdma\":true}}]}");
    assertTrue(whole.contains("resourceList is a key of " + SRIOV), whole);
    String plain = refusal("{\"mode\":\"hca\",\"slots\":4}");
    assertTrue(plain.startsWith(FILE + ": unknown key slots; allowed: "), plain);
    String bare = refusal("{\"resourceName\":\"hca_shared_devices_a\"}");
    assertTrue(bare.contains("write \"rdma/hca_shared_devices_a\""), bare);
    String two = refusal("{\"rdmaHcaMax\":10,\"devices\":[\"ib0\"]}");
    assertTrue(two.contains("devices is a key of") && two.contains("rdmaHcaMax is a key of"), two);
    assertEquals(
        Set.of(),
        Set.copyOf(ForeignKeys.explain("gpu.", List.of("devices"))),
        "keys are looked up by their path: gpu.devices is no other plugin's");
  }

  private static String refusal(String json) {
    return assertThrows(InvalidConfigurationException.class, () -> ResourceConfig.parse(json, FILE))
        .getMessage();
  }
}
