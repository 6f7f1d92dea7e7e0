package dev.tandem.topology.render;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Renders a machine as {@code nvidia-smi topo -m} does: GPU and HCA rows and columns with the
 * locality of each pair, NUMA affinity, then the legend. GPUs are numbered {@code GPU0…} in PCI bus
 * order, as nvidia-smi numbers them; HCAs appear by their ibverbs names. GPU↔GPU cells show the
 * PCIe path (NVLink is not part of the model).
 */
public final class TopologyMatrix {

  private TopologyMatrix() {}

  public static String render(Machine machine) {
    LocalityIndex index = LocalityIndex.of(machine);
    List<Device> devices = machine.devices();
    List<String> labels = labels(machine);
    int width = Math.max(6, labels.stream().mapToInt(String::length).max().orElse(0) + 2);
    StringBuilder out = new StringBuilder();
    out.append(pad("", width));
    labels.forEach(l -> out.append(pad(l, width)));
    out.append("NUMA Affinity\n");
    for (int row = 0; row < devices.size(); row++) {
      out.append(pad(labels.get(row), width));
      for (int col = 0; col < devices.size(); col++) {
        Locality l = index.locality(row, col);
        out.append(pad(l == Locality.X ? " X" : l.name(), width));
      }
      int numa = devices.get(row).numaNode();
      out.append(numa < 0 ? "N/A" : Integer.toString(numa)).append('\n');
    }
    out.append("\nLegend:\n\n");
    for (Locality l : Locality.values()) {
      out.append("  ").append(pad(l.name(), 5)).append("= ").append(l.meaning()).append('\n');
    }
    List<Device> gpus = machine.gpus();
    if (!gpus.isEmpty()) {
      out.append("\nGPU Legend:\n\n");
      for (int i = 0; i < gpus.size(); i++) {
        Device g = gpus.get(i);
        out.append("  GPU")
            .append(i)
            .append(": ")
            .append(g.id())
            .append(g.address() == null ? "" : " (" + g.address() + ")")
            .append('\n');
      }
    }
    return out.toString();
  }

  static List<String> labels(Machine machine) {
    List<String> labels = new ArrayList<>();
    int gpu = 0;
    for (Device d : machine.devices()) {
      labels.add(
          switch (d.kind()) {
            case GPU -> "GPU" + gpu++;
            case HCA -> d.hca().ibDevice() != null ? d.hca().ibDevice() : d.id();
          });
    }
    return labels;
  }

  private static String pad(String s, int width) {
    return s.length() >= width ? s + " " : s + " ".repeat(width - s.length());
  }

  /** One line per GPU naming its nearest HCAs, e.g. {@code GPU0 -> mlx5_0 (PIX)}. */
  public static String pairs(Machine machine) {
    LocalityIndex index = LocalityIndex.of(machine);
    List<String> labels = labels(machine);
    List<Device> devices = machine.devices();
    StringBuilder out = new StringBuilder();
    for (int g = 0; g < devices.size(); g++) {
      if (devices.get(g).kind() != DeviceKind.GPU) {
        continue;
      }
      Locality best = Locality.SYS;
      List<Integer> nearest = new ArrayList<>();
      for (int h = 0; h < devices.size(); h++) {
        if (devices.get(h).kind() == DeviceKind.HCA) {
          Locality l = index.locality(g, h);
          if (l.compareTo(best) < 0) {
            best = l;
            nearest.clear();
          }
          if (l == best) {
            nearest.add(h);
          }
        }
      }
      final int row = g;
      out.append(labels.get(row))
          .append(" -> ")
          .append(
              nearest.isEmpty()
                  ? "none"
                  : nearest.stream().map(labels::get).collect(Collectors.joining(",")))
          .append(nearest.isEmpty() ? "" : " (" + best + ")")
          .append('\n');
    }
    return out.toString();
  }
}
