package dev.tandem.api.crd;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import dev.tandem.topology.model.TopologyBuilder;
import java.util.List;

/** Hand-built machines for tests, built through the shared {@link TopologyBuilder}. */
public final class TestMachines {

  public static final int NVIDIA = 0x10de;
  public static final int MELLANOX = 0x15b3;
  public static final int BROADCOM = 0x1000;

  private TestMachines() {}

  /**
   * Two sockets; on each, one PCIe switch with two GPUs and one HCA; node0's switch also has a
   * second HCA on a root port of its own (so PIX, PXB-less PHB, NODE and SYS all occur).
   *
   * <pre>
   * numa0: hb0 - rp 0000:10:01.0 - sw 0000:11:00.0 - dp 12:00.0 GPU-a0, dp 12:01.0 GPU-a1, dp 12:02.0 mlx5_0
   *        hb1 - rp 0000:20:01.0 - mlx5_1
   * numa1: hb2 - rp 0000:90:01.0 - sw 0000:91:00.0 - dp 92:00.0 GPU-b0, dp 92:01.0 GPU-b1, dp 92:02.0 mlx5_2
   * </pre>
   */
  public static Machine twoSwitches(String node) {
    TopologyBuilder b =
        new TopologyBuilder(node, "hwloc")
            .cpuDomain("numa:0", List.of(0))
            .cpuDomain("numa:1", List.of(1))
            .hostBridge("hostbridge:0000:10", "numa:0")
            .hostBridge("hostbridge:0000:20", "numa:0")
            .hostBridge("hostbridge:0000:90", "numa:1");
    switchTree(b, "hostbridge:0000:10", 0x10, 0);
    switchTree(b, "hostbridge:0000:90", 0x90, 1);
    PciAddress rp = new PciAddress(0, 0x20, 1, 0);
    b.bridge(rp, "hostbridge:0000:20", 0x8086, 0x347a);
    b.device(hca("mlx5_1", new PciAddress(0, 0x21, 0, 0), 0, TopologyBuilder.bridgeId(rp), null));
    return b.build();
  }

  /** GPUs only, one per root port, the second with unknown NUMA node and PCI ids. */
  public static Machine gpusOnly(String node) {
    PciAddress rp0 = new PciAddress(0, 0x3a, 0, 0);
    PciAddress rp1 = new PciAddress(0, 0x5d, 0, 0);
    return new TopologyBuilder(node, "sysfs")
        .cpuDomain("package:0", List.of(0, 1))
        .hostBridge("hostbridge:0000:3a", "package:0")
        .hostBridge("hostbridge:0000:5d", "package:0")
        .bridge(rp0, "hostbridge:0000:3a", -1, -1)
        .bridge(rp1, "hostbridge:0000:5d", 0x8086, 0x2030)
        .device(
            gpu(
                "GPU-11111111-2222-3333-4444-555555555555",
                new PciAddress(0, 0x3b, 0, 0),
                0,
                TopologyBuilder.bridgeId(rp0)))
        .device(
            new Device(
                "GPU-99999999-2222-3333-4444-555555555555",
                DeviceKind.GPU,
                "cuda1",
                new PciAddress(0, 0x5e, 0, 0),
                -1,
                TopologyBuilder.bridgeId(rp1),
                -1,
                -1,
                null,
                false,
                null))
        .build();
  }

  /** An NCCL-style machine of a VM: no PCI addresses, an SR-IOV VF HCA. */
  public static Machine vmWithVf(String node) {
    return new TopologyBuilder(node, "nccl")
        .cpuDomain("numa:0", List.of(0))
        .hostBridge("hostbridge:0", "numa:0")
        .device(
            new Device(
                "GPU-0",
                DeviceKind.GPU,
                "cuda0",
                null,
                0,
                "hostbridge:0",
                NVIDIA,
                0x2330,
                null,
                true,
                null))
        .device(
            new Device(
                "0000:0b:00.2",
                DeviceKind.HCA,
                "mlx5_4",
                new PciAddress(0, 0x0b, 0, 2),
                0,
                "hostbridge:0",
                MELLANOX,
                0x101e,
                "ConnectX-7 VF",
                true,
                new HcaInfo(
                    "mlx5_4",
                    "Ethernet",
                    "DOWN",
                    null,
                    null,
                    List.of(),
                    null,
                    true,
                    new PciAddress(0, 0x0b, 0, 0))))
        .build();
  }

  private static void switchTree(TopologyBuilder b, String hostBridge, int bus, int numa) {
    PciAddress rp = new PciAddress(0, bus, 1, 0);
    PciAddress up = new PciAddress(0, bus + 1, 0, 0);
    b.bridge(rp, hostBridge, 0x8086, 0x347a);
    b.bridge(up, TopologyBuilder.bridgeId(rp), BROADCOM, 0xc030);
    String letter = numa == 0 ? "a" : "b";
    for (int port = 0; port < 3; port++) {
      PciAddress dp = new PciAddress(0, bus + 2, port, 0);
      b.bridge(dp, TopologyBuilder.bridgeId(up), BROADCOM, 0xc030);
      PciAddress fn = new PciAddress(0, bus + 3 + port, 0, 0);
      String parent = TopologyBuilder.bridgeId(dp);
      b.device(
          port < 2
              ? gpu("GPU-" + letter + port, fn, numa, parent)
              : hca("mlx5_" + (numa * 2), fn, numa, parent, "ib" + numa));
    }
  }

  public static Device gpu(String id, PciAddress address, int numa, String parent) {
    return new Device(
        id,
        DeviceKind.GPU,
        null,
        address,
        numa,
        parent,
        NVIDIA,
        0x2330,
        "NVIDIA H100 80GB HBM3",
        true,
        null);
  }

  public static Device hca(
      String name, PciAddress address, int numa, String parent, String netdev) {
    HcaInfo info =
        new HcaInfo(
            name,
            "InfiniBand",
            "ACTIVE",
            "400 Gb/sec (4X NDR)",
            "b83f:d203:00a1:1b2c",
            netdev == null ? List.of() : List.of(netdev),
            "uverbs" + name.substring(5),
            false,
            null);
    return new Device(
        name,
        DeviceKind.HCA,
        name,
        address,
        numa,
        parent,
        MELLANOX,
        0x1021,
        "ConnectX-7",
        true,
        info);
  }
}
