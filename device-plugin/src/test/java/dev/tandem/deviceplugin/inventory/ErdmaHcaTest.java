package dev.tandem.deviceplugin.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node of Alibaba Cloud Elastic RDMA adapters beside ConnectX HCAs, read from its sysfs tree. */
@DisplayName("eRDMA adapters are offered like any HCA; vendor selectors pick one kind")
class ErdmaHcaTest {

  @Test
  @DisplayName(
      "hca mode offers erdma_N and mlx5_N; vendorIds 1ded offers the eRDMA ones, 15b3 the others")
  void offered(@TempDir Path root) throws Exception {
    Machine both = TestMachines.twoSwitchesAndLoneHca("n1");
    Machine erdma = TestMachines.withErdma(both);
    Machine mixed =
        new Machine(
            "n1",
            both.source(),
            both.pcie(),
            both.devices().stream()
                .map(d -> "mlx5_1".equals(d.id()) ? erdma.device("erdma_1").orElseThrow() : d)
                .toList());
    FakeSysfs.write(root, mixed);
    Machine found = TopologySources.discoverOnce(DiscoveryOptions.sysfs("n1", root)).machine();

    assertEquals(List.of("erdma_1", "mlx5_0", "mlx5_2"), ids(found, "{\"mode\":\"hca\"}"));
    assertEquals(List.of("erdma_1"), ids(found, "{\"selectors\":{\"vendorIds\":[\"1ded\"]}}"));
    assertEquals(
        List.of("mlx5_0", "mlx5_2"), ids(found, "{\"selectors\":{\"vendorIds\":[\"15b3\"]}}"));
  }

  private static List<String> ids(Machine m, String config) {
    return Inventory.of(m, ResourceConfig.parse(config, "t")).devices().stream()
        .map(PluginDevice::id)
        .sorted()
        .toList();
  }
}
