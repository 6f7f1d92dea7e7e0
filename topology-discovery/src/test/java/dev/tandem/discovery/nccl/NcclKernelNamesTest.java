package dev.tandem.discovery.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.NcclVm;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every NCCL topology fixture read on a VM it describes: the VM's sysfs as the kernel lays it out
 * (each device a function below a host bridge of its own, the RDMA driver's {@code infiniband/} and
 * {@code infiniband_verbs/} under each NIC) and the NVIDIA driver's procfs, written by {@link
 * NcclVm}. The published ids must be those the kubelet reports: GPU UUIDs and ibverbs names.
 */
@DisplayName("on a VM, the NCCL file gives the grouping and the node gives the names")
class NcclKernelNamesTest {

  @TempDir Path root;

  private static Machine fileAlone(NcclVm vm) {
    return TopologySources.discoverOnce(DiscoveryOptions.ncclTopo("vm-1", vm.path())).machine();
  }

  private Discovery onVm(NcclVm vm) {
    return TopologySources.discoverOnce(new DiscoveryOptions("vm-1", null, root, vm.path(), false));
  }

  @ParameterizedTest
  @EnumSource(NcclVm.class)
  @DisplayName(
      "every fixture: GPUs by UUID and NICs by ibverbs name (uverbs, netdevs, PCI ids from sysfs),"
          + " all healthy, each where the file puts it")
  void namesFromTheNode(NcclVm vm) throws Exception {
    Machine fromFile = fileAlone(vm);
    Machine expected = vm.named(fromFile);
    vm.write(root, expected);

    Discovery d = onVm(vm);

    Machine m = d.machine();
    assertEquals(ids(expected), ids(m));
    for (Device want : expected.devices()) {
      Device got = m.device(want.id()).orElseThrow();
      assertEquals(want.address(), got.address(), want.id());
      assertEquals(want.parentId(), got.parentId(), want.id() + ": the file's grouping");
      assertEquals(want.numaNode(), got.numaNode(), want.id());
      assertEquals(want.vendorId(), got.vendorId(), want.id());
      assertTrue(got.healthy(), want.id());
      if (want.kind() == DeviceKind.HCA) {
        HcaInfo h = got.hca();
        assertEquals(want.id(), h.ibDevice());
        assertEquals(want.hca().uverbs(), h.uverbs(), want.id());
        assertEquals(want.hca().netdevs(), h.netdevs(), want.id());
        assertEquals("ACTIVE", h.portState(), want.id());
      }
    }
    assertEquals(fromFile.gpus().size(), m.gpus().size());
    assertTrue(
        d.notes().stream().noneMatch(n -> n.contains("RDMA driver") || n.contains("kernel's")),
        d.notes().toString());
  }

  @ParameterizedTest
  @EnumSource(NcclVm.class)
  @DisplayName(
      "a NIC whose RDMA driver is not loaded: by its bus id, unhealthy, the bare-metal note naming"
          + " its PCI address, vendor:device and the fix; the others named and healthy")
  void driverlessNic(NcclVm vm) throws Exception {
    Machine expected = vm.named(fileAlone(vm));
    Device off = expected.hcas().get(1);
    vm.write(root, TestMachines.withoutRdmaDriver(expected, off.id()));

    Discovery d = onVm(vm);

    Device nic = d.machine().device(off.address().toString()).orElseThrow();
    assertNull(nic.hca().ibDevice());
    assertFalse(nic.healthy());
    assertEquals(expected.hcas().size(), d.machine().hcas().size());
    assertEquals(
        expected.hcas().size() - 1, d.machine().hcas().stream().filter(Device::healthy).count());
    String pciIds =
        String.format(Locale.ROOT, "%04x:%04x", off.vendorId() & 0xffff, off.deviceId() & 0xffff);
    assertEquals(
        1,
        d.notes().stream()
            .filter(
                n -> n.contains("HCA at PCI " + off.address() + " (PCI vendor:device " + pciIds))
            .filter(n -> n.contains("RDMA driver is not loaded") && n.contains("efa on AWS"))
            .count(),
        d.notes().toString());
  }

  @Test
  @DisplayName(
      "AWS p5 whose kernel kept the efa driver's names: the kernel's efa_N are used, a note says"
          + " the file's rdmapNNs0 differ")
  void kernelNamesWin() throws Exception {
    Machine expected = renamedEfa(NcclVm.AWS_P5.named(fileAlone(NcclVm.AWS_P5)));
    NcclVm.AWS_P5.write(root, expected);

    Discovery d = onVm(NcclVm.AWS_P5);

    assertEquals(ids(expected), ids(d.machine()));
    Device efa0 = d.machine().device("efa_0").orElseThrow();
    assertTrue(efa0.healthy());
    assertTrue(
        d.notes().stream()
            .anyMatch(
                n ->
                    n.contains("NIC at PCI " + efa0.address())
                        && n.contains("names it [rdmap79s0], the kernel [efa_0]")),
        d.notes().toString());
  }

  @Test
  @DisplayName(
      "a NIC the file names but the VM does not have: by its bus id, unhealthy, a note says to"
          + " check the file is this VM size's")
  void missingFunction() throws Exception {
    Machine expected = NcclVm.AZURE_NDV4.named(fileAlone(NcclVm.AZURE_NDV4));
    Device gone = expected.device("mlx5_ib3").orElseThrow();
    List<Device> rest = expected.devices().stream().filter(x -> x != gone).toList();
    NcclVm.AZURE_NDV4.write(
        root, new Machine(expected.nodeName(), expected.source(), expected.pcie(), rest));

    Discovery d = onVm(NcclVm.AZURE_NDV4);

    Device nic = d.machine().device(gone.address().toString()).orElseThrow();
    assertFalse(nic.healthy());
    assertTrue(
        d.notes().stream()
            .anyMatch(
                n ->
                    n.contains("names a NIC at PCI " + gone.address())
                        && n.contains("that this node does not have")),
        d.notes().toString());
  }

  @Test
  @DisplayName("the file read alone (simulator, demo): the file's names, every NIC healthy")
  void fileAloneKeepsTheFile() {
    Machine m = fileAlone(NcclVm.AZURE_NDV4);
    assertTrue(m.hcas().stream().allMatch(h -> h.healthy() && h.hca().ibDevice() == null));
    assertTrue(m.hcas().stream().allMatch(h -> h.id().equals(h.address().toString())));
    Machine p5 = fileAlone(NcclVm.AWS_P5);
    assertTrue(p5.device("rdmap79s0").orElseThrow().healthy());
  }

  private static List<String> ids(Machine m) {
    return m.devices().stream().map(Device::id).toList();
  }

  /** The NICs named {@code efa_N} (the efa driver's names, without a udev rename). */
  private static Machine renamedEfa(Machine m) {
    List<Device> out =
        m.devices().stream()
            .map(
                d -> {
                  if (d.kind() != DeviceKind.HCA) {
                    return d;
                  }
                  String efa = "efa_" + d.hca().uverbs().substring("uverbs".length());
                  HcaInfo named =
                      d.hca().toBuilder()
                          .ibDevice(efa)
                          .virtualFunction(false)
                          .physicalFunction(null)
                          .build();
                  return d.toBuilder().id(efa).name(efa).healthy(true).hca(named).build();
                })
            .toList();
    return new Machine(m.nodeName(), m.source(), m.pcie(), out);
  }
}
