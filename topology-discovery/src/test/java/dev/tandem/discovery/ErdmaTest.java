package dev.tandem.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Alibaba Cloud Elastic RDMA adapters are HCAs, with or without their driver")
class ErdmaTest {

  @Test
  @DisplayName("erdma_N from /sys/class/infiniband: HCAs named by ibverbs name, vendor 1ded")
  void withDriver(@TempDir Path root) throws Exception {
    FakeSysfs.write(root, TestMachines.withErdma(TestMachines.twoSwitchesAndLoneHca("n1")));

    Machine m = TopologySources.discoverOnce(DiscoveryOptions.sysfs("n1", root)).machine();

    assertEquals(
        List.of("erdma_0", "erdma_1", "erdma_2"), m.hcas().stream().map(Device::id).toList());
    Device hca = m.device("erdma_0").orElseThrow();
    assertEquals(0x1ded, hca.vendorId());
    assertEquals(0x107f, hca.deviceId());
    assertTrue(hca.healthy());
  }

  @Test
  @DisplayName(
      "1ded:107f without its erdma driver: an HCA by PCI address, unhealthy, the note names erdma")
  void withoutDriver(@TempDir Path root) throws Exception {
    FakeSysfs.write(
        root,
        TestMachines.withoutRdmaDriver(
            TestMachines.withErdma(TestMachines.twoSwitchesAndLoneHca("n1")), "erdma_1"));

    Discovery d = TopologySources.discoverOnce(DiscoveryOptions.sysfs("n1", root));

    Device hca = d.machine().device("0000:21:00.0").orElseThrow();
    assertFalse(hca.healthy());
    assertEquals(3, d.machine().hcas().size());
    assertTrue(
        d.notes().stream()
            .anyMatch(n -> n.contains("HCA at PCI 0000:21:00.0 (PCI vendor:device 1ded:107f)")),
        d.notes().toString());
  }
}
