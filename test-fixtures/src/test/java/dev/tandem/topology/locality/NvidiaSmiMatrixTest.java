package dev.tandem.topology.locality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every GPU↔NIC cell Tandem computes for a modelled machine equals the cell nvidia-smi printed on
 * the real one: the locality rules are nvidia-smi's.
 */
class NvidiaSmiMatrixTest {

  static Stream<Arguments> machines() {
    return Stream.of(
        Arguments.of(
            "dgx-a100-epyc7742-a100x8.nvidia-smi-topo-m.txt",
            (Supplier<Machine>) RealMachines::dgxA100),
        Arguments.of(
            "hgx-h100-8gpu-8nic.sglang-30401.nvidia-smi-topo-m.txt",
            (Supplier<Machine>) RealMachines::hgxH100EightNic),
        Arguments.of(
            "hgx-h100-8gpu-12nic.mooncake-2039.nvidia-smi-topo-m.txt",
            (Supplier<Machine>) RealMachines::hgxH100TwelveNic),
        Arguments.of(
            "hgx-h200-8gpu-9nic.weiziyang-blog.nvidia-smi-topo-m.txt",
            (Supplier<Machine>) RealMachines::hgxH200));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("machines")
  @DisplayName("GPU-to-NIC and NIC-to-NIC localities equal nvidia-smi's matrix cell by cell")
  void localitiesEqualNvidiaSmi(String file, Supplier<Machine> machine) throws IOException {
    NvidiaSmiMatrix matrix = NvidiaSmiMatrix.load(file);
    Machine m = machine.get();
    LocalityIndex index = LocalityIndex.of(m);
    List<Device> gpus = m.gpus();
    List<String> mismatches = new ArrayList<>();
    int checked = 0;
    for (String row : matrix.cells().keySet()) {
      for (String column : matrix.columns()) {
        if (row.startsWith("GPU") && column.startsWith("GPU")) {
          continue; // NVLink cells: not part of the PCIe model
        }
        String expected = matrix.cell(row, column);
        String actual = index.locality(id(row, gpus), id(column, gpus)).name();
        checked++;
        if (!expected.equals(actual)) {
          mismatches.add(row + "/" + column + ": nvidia-smi " + expected + ", tandem " + actual);
        }
      }
    }
    assertTrue(checked >= 64, "too few cells checked: " + checked);
    assertEquals(List.of(), mismatches);
  }

  /** nvidia-smi numbers GPUs in PCI bus order, which is the model's canonical GPU order. */
  private static String id(String label, List<Device> gpus) {
    return label.startsWith("GPU") ? gpus.get(Integer.parseInt(label.substring(3))).id() : label;
  }
}
