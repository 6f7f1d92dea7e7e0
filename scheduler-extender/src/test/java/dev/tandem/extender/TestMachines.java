package dev.tandem.extender;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import dev.tandem.topology.model.TopologyBuilder;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Small machines for tests, built the way discovery builds them (through TopologyBuilder). */
public final class TestMachines {

  /** One PCIe switch on a NUMA node with some GPUs and HCAs below it. */
  public record Switch(int numa, int gpus, int hcas) {}

  private TestMachines() {}

  /** pix-node: two switches, each with 2 GPUs and 2 HCAs (a 2+2 pod fits under one switch). */
  public static Machine pixNode() {
    return machine("pix-node", new Switch(0, 2, 2), new Switch(1, 2, 2));
  }

  /** split-node: GPUs under switches of NUMA 0, HCAs under a switch of NUMA 1 (best is SYS). */
  public static Machine splitNode() {
    return machine("split-node", new Switch(0, 4, 0), new Switch(1, 0, 4));
  }

  /** gpu-only: four GPUs, no HCA. */
  public static Machine gpuOnly() {
    return machine("gpu-only", new Switch(0, 2, 0), new Switch(1, 2, 0));
  }

  public static List<Machine> golden() {
    return List.of(pixNode(), splitNode(), gpuOnly());
  }

  public static Machine machine(String node, Switch... switches) {
    TopologyBuilder b = new TopologyBuilder(node, "test");
    Set<Integer> numas = new HashSet<>();
    int gpu = 0;
    int hca = 0;
    for (int s = 0; s < switches.length; s++) {
      Switch sw = switches[s];
      if (numas.add(sw.numa())) {
        b.cpuDomain("numa" + sw.numa(), List.of(sw.numa()));
        b.hostBridge("hb" + sw.numa(), "numa" + sw.numa());
      }
      int bus = 0x10 * (s + 1);
      PciAddress rp = new PciAddress(0, bus, 1, 0);
      PciAddress up = new PciAddress(0, bus + 1, 0, 0);
      b.bridge(rp, "hb" + sw.numa(), 0x8086, 0x352a);
      b.bridge(up, TopologyBuilder.bridgeId(rp), 0x1000, 0xc030);
      for (int k = 0; k < sw.gpus() + sw.hcas(); k++) {
        PciAddress down = new PciAddress(0, bus + 2, k, 0);
        b.bridge(down, TopologyBuilder.bridgeId(up), 0x1000, 0xc030);
        PciAddress at = new PciAddress(0, bus + 3 + k, 0, 0);
        String parent = TopologyBuilder.bridgeId(down);
        if (k < sw.gpus()) {
          b.device(
              new Device(
                  "GPU-" + node + "-" + gpu,
                  DeviceKind.GPU,
                  "cuda" + gpu,
                  at,
                  sw.numa(),
                  parent,
                  0x10de,
                  0x2330,
                  "NVIDIA H100 80GB HBM3",
                  true,
                  null));
          gpu++;
        } else {
          String id = "mlx5_" + hca++;
          b.device(
              new Device(
                  id,
                  DeviceKind.HCA,
                  id,
                  at,
                  sw.numa(),
                  parent,
                  0x15b3,
                  0x1021,
                  "ConnectX-7",
                  true,
                  HcaInfo.named(id)));
        }
      }
    }
    return b.build();
  }
}
