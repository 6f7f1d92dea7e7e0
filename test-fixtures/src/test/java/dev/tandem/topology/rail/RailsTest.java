package dev.tandem.topology.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RailsTest {

  private static final String SETTING = "--rail-map rails.json";

  @Test
  @DisplayName("PCI order: DGX A100's eight GPU-side NICs are rails 0-7, its storage NIC has none")
  void pciOrderSkipsStorage() {
    Rails.Assigned a = Rails.byPciOrder(RealMachines.dgxA100());
    Map<String, Integer> rails = rails(a.machine());
    for (int i = 0; i < 8; i++) {
      assertEquals(i, rails.get("mlx5_" + i), "mlx5_" + i);
    }
    assertEquals(null, rails.get("mlx5_8"), "storage NIC, under no GPU's switch");
    assertEquals(null, rails.get("mlx5_9"), "storage NIC, under no GPU's switch");
    assertEquals(Rails.PCI_ORDER, a.source());
    assertEquals(List.of(), a.notes());
  }

  @Test
  @DisplayName("PCI order: HGX H200's NICs by address whatever their names, no rail for the bond")
  void pciOrderByAddress() {
    Map<String, Integer> rails = rails(Rails.byPciOrder(RealMachines.hgxH200()).machine());
    List<String> nics =
        List.of("mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9");
    for (int i = 0; i < nics.size(); i++) {
      assertEquals(i, rails.get(nics.get(i)), nics.get(i));
    }
    assertEquals(null, rails.get("mlx5_bond_0"));
  }

  @Test
  @DisplayName("mapping: by ibverbs name, netdev or PCI address; an HCA it does not name has none")
  void mappingByEveryKey() {
    Machine m = withNetdev(RealMachines.hgxH100EightNic(), "mlx5_1", "ibp1s0");
    Map<String, Integer> map = new LinkedHashMap<>();
    map.put("mlx5_0", 7);
    map.put("ibp1s0", 6);
    map.put(m.device("mlx5_2").orElseThrow().address().toString(), 5);
    Rails.Assigned a = Rails.fromMapping(m, map, SETTING);
    Map<String, Integer> rails = rails(a.machine());
    assertEquals(7, rails.get("mlx5_0"));
    assertEquals(6, rails.get("mlx5_1"));
    assertEquals(5, rails.get("mlx5_2"));
    assertEquals(null, rails.get("mlx5_3"), "not in the mapping: no rail");
    assertEquals(Rails.MAPPING, a.source());
    assertEquals(List.of(), a.notes());
  }

  @Test
  @DisplayName("mapping: an HCA the node lacks is a note naming node, HCA and setting")
  void mappingNamesMissingHca() {
    Rails.Assigned a =
        Rails.fromMapping(
            RealMachines.hgxH100EightNic(), Map.of("mlx5_0", 0, "mlx5_42", 1), SETTING);
    assertEquals(0, rails(a.machine()).get("mlx5_0"));
    assertEquals(1, a.notes().size(), a.notes().toString());
    String note = a.notes().get(0);
    assertTrue(
        note.contains("hgx-h100-8nic") && note.contains("mlx5_42") && note.contains(SETTING), note);
  }

  @Test
  @DisplayName("mapping: two HCAs on one rail, or one HCA on two, lose their rails with a note")
  void mappingConflicts() {
    Machine m = withNetdev(RealMachines.hgxH100EightNic(), "mlx5_1", "ibp1s0");
    Rails.Assigned a =
        Rails.fromMapping(
            m, Map.of("mlx5_0", 3, "mlx5_2", 3, "mlx5_1", 1, "ibp1s0", 2, "mlx5_4", 4), SETTING);
    Map<String, Integer> rails = rails(a.machine());
    assertEquals(null, rails.get("mlx5_0"));
    assertEquals(null, rails.get("mlx5_2"));
    assertEquals(null, rails.get("mlx5_1"));
    assertEquals(4, rails.get("mlx5_4"));
    assertEquals(2, a.notes().size(), a.notes().toString());
    assertTrue(a.notes().stream().anyMatch(n -> n.contains("mlx5_0, mlx5_2 on one rail 3")));
    assertTrue(a.notes().stream().anyMatch(n -> n.contains("HCA mlx5_1 on rails 2 and 1")));
    assertTrue(a.notes().stream().allMatch(n -> n.contains("hgx-h100-8nic: " + SETTING)));
  }

  @Test
  @DisplayName("SR-IOV: a VF is on its PF's rail")
  void virtualFunctionsFollowTheirPf() {
    Machine m =
        TestMachines.withVirtualFunctions(RealMachines.hgxH100EightNic(), "mlx5_3", "vf0", "vf1");
    Map<String, Integer> rails = rails(Rails.byPciOrder(m).machine());
    assertEquals(3, rails.get("mlx5_3"));
    assertEquals(3, rails.get("vf0"));
    assertEquals(3, rails.get("vf1"));
    assertEquals(4, rails.get("mlx5_4"), "VFs take no rail of their own");
    Map<String, Integer> mapped =
        rails(Rails.fromMapping(m, Map.of("mlx5_3", 5, "vf1", 6), SETTING).machine());
    assertEquals(5, mapped.get("vf0"), "unnamed VF: its PF's rail");
    assertEquals(6, mapped.get("vf1"), "a VF the mapping names keeps its own");
  }

  private static Map<String, Integer> rails(Machine m) {
    Map<String, Integer> out = new LinkedHashMap<>();
    m.hcas().forEach(d -> out.put(d.id(), d.hca().rail()));
    return out;
  }

  private static Machine withNetdev(Machine m, String hca, String netdev) {
    return new Machine(
        m.nodeName(),
        m.source(),
        m.pcie(),
        m.devices().stream()
            .map(
                d ->
                    d.id().equals(hca)
                        ? d.toBuilder()
                            .hca(d.hca().toBuilder().netdevs(List.of(netdev)).build())
                            .build()
                        : d)
            .toList());
  }
}
