package dev.tandem.deviceplugin;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import dev.tandem.topology.model.TopologyBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Machines built with the shared TopologyBuilder, and sysfs trees for them. */
public final class TestMachines {

  private TestMachines() {}

  /** Two sockets, each with one switch holding one GPU and one HCA: GPU-0/mlx5_0, GPU-1/mlx5_1. */
  public static Machine twoSwitches(String node) {
    TopologyBuilder b = new TopologyBuilder(node, "test");
    for (int s = 0; s < 2; s++) {
      quadrant(b, s, s, List.of("GPU-" + s), List.of("mlx5_" + s));
    }
    return b.build();
  }

  /**
   * DGX-A100-shaped (after the nvidia-smi matrix in shared/topologies): four root ports, each with
   * a top switch over two lower switches, one with two GPUs and one with two HCAs (GPU↔HCA PXB);
   * plus a storage HCA pair mlx5_8/mlx5_9 alone on its own root port.
   */
  public static Machine dgxA100(String node) {
    TopologyBuilder b = new TopologyBuilder(node, "test");
    int[] numa = {3, 1, 7, 5};
    for (int q = 0; q < 4; q++) {
      String cpu = "cpu" + numa[q];
      b.cpuDomain(cpu, List.of(numa[q]));
      b.hostBridge("hb" + q, cpu);
      int bus = 0x10 + q * 0x20;
      PciAddress rp = addr(bus, 0);
      PciAddress up = addr(bus + 1, 0);
      b.bridge(rp, "hb" + q, 0x1022, 0x1483);
      b.bridge(up, TopologyBuilder.bridgeId(rp), 0x1000, 0xc010);
      for (int half = 0; half < 2; half++) {
        PciAddress down = new PciAddress(0, bus + 2, half, 0);
        PciAddress lowUp = addr(bus + 3 + half * 4, 0);
        b.bridge(down, TopologyBuilder.bridgeId(up), 0x1000, 0xc010);
        b.bridge(lowUp, TopologyBuilder.bridgeId(down), 0x1000, 0xc010);
        for (int k = 0; k < 2; k++) {
          PciAddress port = new PciAddress(0, bus + 4 + half * 4, k, 0);
          b.bridge(port, TopologyBuilder.bridgeId(lowUp), 0x1000, 0xc010);
          PciAddress ep = addr(bus + 5 + half * 4 + k, 0);
          int i = q * 2 + k;
          b.device(
              half == 0
                  ? gpu("GPU-" + i, ep, numa[q], TopologyBuilder.bridgeId(port))
                  : hca("mlx5_" + i, ep, numa[q], TopologyBuilder.bridgeId(port)));
        }
      }
    }
    b.hostBridge("hb-storage", "cpu3");
    PciAddress rp = addr(0xe0, 0);
    b.bridge(rp, "hb-storage", 0x1022, 0x1483);
    b.device(hca("mlx5_8", new PciAddress(0, 0xe1, 0, 0), 3, TopologyBuilder.bridgeId(rp)));
    b.device(hca("mlx5_9", new PciAddress(0, 0xe1, 0, 1), 3, TopologyBuilder.bridgeId(rp)));
    return b.build();
  }

  private static void quadrant(
      TopologyBuilder b, int s, int numa, List<String> gpus, List<String> hcas) {
    b.cpuDomain("cpu" + s, List.of(numa));
    b.hostBridge("hb" + s, "cpu" + s);
    int bus = 0x10 + s * 0x40;
    PciAddress rp = addr(bus, 0);
    PciAddress up = addr(bus + 1, 0);
    b.bridge(rp, "hb" + s, 0x8086, 0x352a);
    b.bridge(up, TopologyBuilder.bridgeId(rp), 0x1000, 0xc030);
    int slot = 0;
    for (String g : gpus) {
      PciAddress down = new PciAddress(0, bus + 2, slot, 0);
      b.bridge(down, TopologyBuilder.bridgeId(up), 0x1000, 0xc030);
      b.device(gpu(g, addr(bus + 3 + slot, 0), numa, TopologyBuilder.bridgeId(down)));
      slot++;
    }
    for (String h : hcas) {
      PciAddress down = new PciAddress(0, bus + 2, slot, 0);
      b.bridge(down, TopologyBuilder.bridgeId(up), 0x1000, 0xc030);
      b.device(hca(h, addr(bus + 3 + slot, 0), numa, TopologyBuilder.bridgeId(down)));
      slot++;
    }
  }

  static PciAddress addr(int bus, int dev) {
    return new PciAddress(0, bus, dev, 0);
  }

  static Device gpu(String id, PciAddress a, int numa, String parent) {
    return new Device(id, DeviceKind.GPU, id, a, numa, parent, 0x10de, 0x20b2, "A100", true, null);
  }

  static Device hca(String name, PciAddress a, int numa, String parent) {
    return new Device(
        name,
        DeviceKind.HCA,
        name,
        a,
        numa,
        parent,
        0x15b3,
        0x101b,
        "ConnectX-6",
        true,
        new HcaInfo(name, "InfiniBand", null, null, null, List.of(), null, false, null));
  }

  /** A sysfs tree with uverbsN and port 1 state for each HCA of the machine (all ACTIVE). */
  public static Path sysfs(Path root, Machine m) throws IOException {
    int n = 0;
    for (Device h : m.hcas()) {
      String ib = h.hca().ibDevice();
      Files.createDirectories(
          root.resolve("sys/class/infiniband/" + ib + "/device/infiniband_verbs/uverbs" + n++));
      portState(root, ib, "4: ACTIVE");
    }
    return root;
  }

  public static void portState(Path root, String ib, String state) throws IOException {
    Path p = root.resolve("sys/class/infiniband/" + ib + "/ports/1");
    Files.createDirectories(p);
    Files.writeString(p.resolve("state"), state + "\n");
  }
}
