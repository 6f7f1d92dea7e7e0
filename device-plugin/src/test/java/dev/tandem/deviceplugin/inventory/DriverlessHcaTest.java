package dev.tandem.deviceplugin.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.crd.DeviceEntry;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.resource.HcaDevices;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.discovery.UverbsLocator;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node where one HCA's RDMA driver is not loaded, as the kernel shows it: the PCI function of
 * mlx5_1 (0000:21:00.0) is there, with no {@code infiniband/} directory. Discovery reads the sysfs
 * tree; the plugin and the agent start from what it found, as on a node.
 */
@DisplayName("an HCA without an ibverbs name is skipped with one warning, the others are served")
class DriverlessHcaTest {

  private static final String DRIVERLESS = "0000:21:00.0";

  @TempDir Path root;
  private Machine discovered;

  @BeforeEach
  void node() throws Exception {
    Machine node =
        TestMachines.withoutRdmaDriver(TestMachines.twoSwitchesAndLoneHca("n1"), "mlx5_1");
    FakeSysfs.write(root, node);
    discovered = TopologySources.discoverOnce(DiscoveryOptions.sysfs("n1", root)).machine();
  }

  @Test
  @DisplayName("the kernel's tree: the function is found, by its PCI address, without infiniband/")
  void kernelTree() {
    assertTrue(Files.isDirectory(root.resolve("sys/bus/pci/devices/" + DRIVERLESS + "/")));
    assertTrue(Files.notExists(root.resolve("sys/bus/pci/devices/" + DRIVERLESS + "/infiniband")));
    assertTrue(Files.isSymbolicLink(root.resolve("sys/class/infiniband/mlx5_0")));
    Device hca = discovered.device(DRIVERLESS).orElseThrow();
    assertEquals(DeviceKind.HCA, hca.kind());
    assertNull(hca.hca().ibDevice());
    assertEquals(3, discovered.hcas().size());
  }

  @Test
  @DisplayName(
      "hca mode: the plugin's ids are the agent's ids of the other HCAs, the same strings; one WARN names the address and the fix")
  void sameIdsAsTheAgent() {
    String[] log = new String[1];
    Inventory inventory = logged(() -> Inventory.of(discovered, ResourceConfig.DEFAULT), log);

    List<String> plugin = inventory.devices().stream().map(PluginDevice::id).toList();
    List<String> agent =
        NodeTopologyMapper.toSpec(discovered).devices().stream()
            .filter(e -> e.kind().equals(DeviceKind.HCA.name()))
            .map(DeviceEntry::id)
            .filter(id -> !id.equals(DRIVERLESS))
            .toList();
    assertEquals(List.of("mlx5_0", "mlx5_2"), plugin);
    assertEquals(agent, plugin);
    List<String> warnings =
        Arrays.stream(log[0].split("\n")).filter(l -> l.contains("WARN")).toList();
    assertEquals(1, warnings.size(), log[0]);
    assertTrue(
        warnings.get(0).contains("node n1: RDMA device at PCI " + DRIVERLESS)
            && warnings.get(0).contains("Load its RDMA driver (mlx5_ib"),
        warnings.get(0));
  }

  @Test
  @DisplayName("the served HCAs' health and uverbs devices read through the kernel's links")
  void othersServed() {
    Inventory inventory = logged(() -> Inventory.of(discovered, ResourceConfig.DEFAULT), null);
    HcaDevices devices = new HcaDevices(inventory, new PortStates(root), new UverbsLocator(root));

    assertEquals(Map.of("mlx5_0", true, "mlx5_2", true), devices.readHealth());
    assertTrue(devices.uverbs("mlx5_0").orElseThrow().startsWith("uverbs"));
  }

  @Test
  @DisplayName("shared mode: slots of the named HCAs only, none named after a missing name")
  void shared() {
    Inventory inventory =
        logged(
            () ->
                Inventory.of(
                    discovered,
                    ResourceConfig.parse("{\"mode\":\"shared\",\"slotsPerHca\":2}", "t")),
            null);

    assertEquals(
        List.of("mlx5_0-slot-0", "mlx5_0-slot-1", "mlx5_2-slot-0", "mlx5_2-slot-1"),
        inventory.devices().stream().map(PluginDevice::id).toList());
  }

  /**
   * Runs {@code what} with the log (slf4j-simple writes to System.err) kept in {@code log[0]} (when
   * {@code log} is not null); shared with the other inventory tests that read warnings.
   */
  static <T> T logged(Supplier<T> what, String[] log) {
    PrintStream err = System.err;
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(text, true, StandardCharsets.UTF_8));
      return what.get();
    } finally {
      System.setErr(err);
      if (log != null) {
        log[0] = text.toString(StandardCharsets.UTF_8);
      }
    }
  }
}
