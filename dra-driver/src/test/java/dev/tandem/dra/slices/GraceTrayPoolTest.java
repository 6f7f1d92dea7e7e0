package dev.tandem.dra.slices;

import static dev.tandem.dra.slices.PoolBuilderTest.attr;
import static dev.tandem.dra.slices.PoolBuilderTest.byTreeId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.api.dra.DraAttributes;
import dev.tandem.discovery.DataDirectTies;
import dev.tandem.discovery.sysfs.SysfsReader;
import dev.tandem.fixtures.GraceTray;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A GB300 tray's pool, read back by discovery from its sysfs: each NIC beside its GPU. */
class GraceTrayPoolTest {

  @TempDir Path root;

  @Test
  @DisplayName("Data Direct: a NIC's switch key and pcieRoot are its GPU's, its pciBusID its own")
  void dataDirectNicsShareTheirGpusKeys() throws IOException {
    GraceTray tray = GraceTray.GB300_CX8;
    tray.write(root);
    Machine m =
        SysfsReader.read(root, "gb300", List.of(), DataDirectTies.of(tray.dataDirect())).machine();

    Map<String, PublishedDevice> d = byTreeId(PoolBuilder.build(m, PoolSpec.joint()));

    PublishedDevice gpu = d.get(tray.gpuUuid(PciAddress.parse("0009:06:00.0")));
    PublishedDevice nic = d.get("mlx5_0");
    assertEquals(attr(gpu, DraAttributes.PCIE_SWITCH), attr(nic, DraAttributes.PCIE_SWITCH));
    assertEquals("\"pci0009:00\"", attr(nic, DraAttributes.PCIE_ROOT));
    assertEquals("\"0000:03:00.0\"", attr(nic, DraAttributes.PCI_BUS_ID));
    assertEquals("\"0009:03:00.0\"", attr(nic, DraAttributes.DATA_DIRECT));
    assertEquals(attr(gpu, DraAttributes.NUMA_NODE), attr(nic, DraAttributes.NUMA_NODE));
    PublishedDevice other = d.get(tray.gpuUuid(PciAddress.parse("0008:06:00.0")));
    assertNotEquals(attr(other, DraAttributes.PCIE_SWITCH), attr(nic, DraAttributes.PCIE_SWITCH));
  }

  @Test
  @DisplayName("without Data Direct a NIC keeps its own root and has no dataDirect attribute")
  void withoutDataDirect() throws IOException {
    GraceTray.GB200_CX7.write(root);
    Machine m = SysfsReader.read(root, "gb200", List.of(), DataDirectTies.of(Map.of())).machine();

    PublishedDevice nic = byTreeId(PoolBuilder.build(m, PoolSpec.joint())).get("mlx5_0");

    assertEquals("\"pci0000:00\"", attr(nic, DraAttributes.PCIE_ROOT));
    assertNull(attr(nic, DraAttributes.DATA_DIRECT));
  }
}
