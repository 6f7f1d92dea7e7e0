package dev.tandem.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UverbsLocatorTest {

  @TempDir Path root;

  @Test
  @DisplayName(
      "HCAs a source named no uverbs device for (an hwloc export) get sysfs's; others are kept")
  void withUverbs() throws Exception {
    Machine fixture = TestMachines.twoSwitchesAndLoneHca("n1");
    List<Device> hcas = fixture.devices().stream().filter(d -> d.hca() != null).toList();
    String first = hcas.get(0).hca().ibDevice();
    String third = hcas.get(2).hca().ibDevice();
    Files.createDirectories(
        root.resolve("sys/class/infiniband/" + first + "/device/infiniband_verbs/uverbs3"));
    Machine m =
        new Machine(
            "n1",
            "hwloc-xml",
            fixture.pcie(),
            fixture.devices().stream()
                .map(
                    d ->
                        d.hca() == null
                            ? d
                            : d.toBuilder()
                                .hca(
                                    d.hca().toBuilder()
                                        .uverbs(d.hca().ibDevice().equals(third) ? "uverbs7" : null)
                                        .build())
                                .build())
                .toList());

    Machine filled = new UverbsLocator(root).withUverbs(m);

    assertEquals("uverbs3", filled.device(hcas.get(0).id()).orElseThrow().hca().uverbs());
    assertNull(filled.device(hcas.get(1).id()).orElseThrow().hca().uverbs(), "none in sysfs: none");
    assertEquals("uverbs7", filled.device(hcas.get(2).id()).orElseThrow().hca().uverbs());
  }

  @Test
  @DisplayName("an HCA whose RDMA driver is not loaded (no ibverbs name) is kept as it is")
  void withoutRdmaDriver() {
    Machine fixture = TestMachines.twoSwitchesAndLoneHca("n1");
    String ib =
        fixture.devices().stream()
            .filter(d -> d.hca() != null)
            .findFirst()
            .orElseThrow()
            .hca()
            .ibDevice();
    Machine unloaded = TestMachines.withoutRdmaDriver(fixture, ib);

    assertEquals(unloaded.devices(), new UverbsLocator(root).withUverbs(unloaded).devices());
  }
}
