package dev.tandem.api.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.model.PcieNode;
import dev.tandem.topology.model.TopologyBuilder;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LocalityAttributesTest {

  @Test
  @DisplayName(
      "a CPU domain whose id is longer than an attribute value may be keeps a value of 64"
          + " characters, distinct from a domain that shares its first 47")
  void longGroupIdsStayWithinTheApiLimitAndDistinct() {
    String a = domainId(IntStream.range(0, 40).map(i -> 2 * i).boxed().toList());
    String b = domainId(IntStream.range(0, 41).map(i -> 2 * i).boxed().toList());
    assertTrue(a.length() > LocalityAttributes.MAX_VALUE_LENGTH, a);
    String va = LocalityAttributes.value(cpuDomain(a));
    String vb = LocalityAttributes.value(cpuDomain(b));
    assertEquals(LocalityAttributes.MAX_VALUE_LENGTH, va.length(), va);
    assertEquals(a.substring(0, 47), va.substring(0, 47));
    assertNotEquals(va, vb);
    assertEquals(va, LocalityAttributes.value(cpuDomain(a)), "the same group, the same value");
  }

  @Test
  @DisplayName("a short id is its own value")
  void shortIdsAreKept() {
    assertEquals("numa:0-1", LocalityAttributes.value(cpuDomain("numa:0-1")));
  }

  private static String domainId(List<Integer> numaNodes) {
    StringBuilder out = new StringBuilder("numa:");
    numaNodes.forEach(n -> out.append(out.length() > 5 ? "," : "").append(n));
    return out.toString();
  }

  private static PcieNode cpuDomain(String id) {
    TopologyBuilder b = new TopologyBuilder("n", "test");
    b.cpuDomain(id, List.of(0));
    return b.build().pcie().stream().filter(n -> n.id().equals(id)).findFirst().orElseThrow();
  }
}
