package dev.tandem.agent.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("resource names the kubelet offers against the agent's")
class ResourceNameCheckTest {

  @Test
  @DisplayName(
      "another name of the family or of the configured domain is found; the other configured"
          + " name, unrelated names and a missing family are not")
  void families() {
    assertEquals(
        List.of(), ResourceNameCheck.mismatches(List.of(), ResourceNames.DEFAULT), "nothing yet");
    assertEquals(
        List.of(),
        ResourceNameCheck.mismatches(
            List.of("nvidia.com/gpu", "example.com/fpga"), ResourceNames.DEFAULT),
        "no RDMA resource at all: a GPU-only node");
    List<String> custom =
        ResourceNameCheck.mismatches(
            List.of("example.com/gpu", "example.com/shared_hca"),
            new ResourceNames("example.com/gpu", "example.com/hca"));
    assertEquals(1, custom.size(), custom.toString());
    assertTrue(
        custom
            .get(0)
            .startsWith("the kubelet offers example.com/shared_hca but no example.com/hca"),
        custom.get(0));
    List<String> both =
        ResourceNameCheck.mismatches(
            List.of("rdma/hca_shared_devices_a", "rdma/vhca"), ResourceNames.DEFAULT);
    assertTrue(
        both.get(0).startsWith("the kubelet offers rdma/hca_shared_devices_a, rdma/vhca but no"),
        both.toString());
  }

  @Test
  @DisplayName(
      "NVIDIA's MIG profile resources (mig-strategy mixed) are not a renamed GPU resource: no note,"
          + " even when no nvidia.com/gpu is offered")
  void migProfiles() {
    assertEquals(
        List.of(),
        ResourceNameCheck.mismatches(
            List.of("nvidia.com/mig-1g.10gb", "nvidia.com/mig-3g.40gb", "rdma/hca"),
            ResourceNames.DEFAULT));
    List<String> renamed =
        ResourceNameCheck.mismatches(
            List.of("nvidia.com/mig-1g.10gb", "nvidia.com/gpu.shared", "rdma/hca"),
            ResourceNames.DEFAULT);
    assertEquals(1, renamed.size(), renamed.toString());
    assertTrue(
        renamed.get(0).startsWith("the kubelet offers nvidia.com/gpu.shared but no nvidia.com/gpu"),
        renamed.get(0));
  }
}
