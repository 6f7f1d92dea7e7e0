package dev.tandem.deviceplugin.preferred;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("a container's question to a policy, and the kubelet's own answer to it")
class PreferredRequestTest {

  @Test
  @DisplayName("the kubelet's order: must-include ids first, then the offered ones, up to the size")
  void kubeletOrder() {
    PreferredRequest r =
        new PreferredRequest(Side.HCA, List.of("a", "b", "c", "d"), List.of("c"), 3);
    assertEquals(List.of("c", "a", "b"), r.kubeletOrder());
    assertEquals(
        List.of("a"), new PreferredRequest(Side.GPU, List.of("a"), List.of(), 2).kubeletOrder());
  }
}
