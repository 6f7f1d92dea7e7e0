package dev.tandem.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.model.DeviceKind;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("resource names: what the API server accepts as an extended resource, and the pair")
class ResourceNamesTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "rdma/hca",
        "nvidia.com/gpu",
        "rdma/shared_hca",
        "example.com/a.b-c_d",
        "a/B9",
        "rdma/hca_shared_devices_a"
      })
  @DisplayName("extended resource names are accepted as they are")
  void valid(String name) {
    assertEquals(name, ResourceNames.extended(name));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "hca",
        "/hca",
        "rdma/",
        "a/b/c",
        "kubernetes.io/hca",
        "rdma.kubernetes.io/hca",
        "requests.rdma/hca",
        "RDMA/hca",
        "rdma_x/hca",
        "rdma/-hca",
        "rdma/hca!"
      })
  @DisplayName("names the API server refuses are refused, saying what is wrong")
  void invalid(String name) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ResourceNames.extended(name));
    assertTrue(
        e.getMessage().startsWith("is ") || e.getMessage().startsWith("has "), e.getMessage());
  }

  @Test
  @DisplayName("a name part of 63 characters is the longest")
  void length() {
    assertFalse(ResourceNames.extended("x/" + "n".repeat(63)).isEmpty());
    assertThrows(
        IllegalArgumentException.class, () -> ResourceNames.extended("x/" + "n".repeat(64)));
  }

  @Test
  @DisplayName("the pair: each kind's name, which resources it governs, the two must differ")
  void pair() {
    ResourceNames r = new ResourceNames("nvidia.com/gpu", "rdma/shared_hca");
    assertEquals("rdma/shared_hca", r.of(DeviceKind.HCA));
    assertEquals("nvidia.com/gpu", r.of(DeviceKind.GPU));
    assertTrue(r.governs("rdma/shared_hca"));
    assertFalse(r.governs("rdma/hca"));
    assertEquals(
        "the GPU and the HCA resource are both rdma/hca; they must differ",
        assertThrows(
                IllegalArgumentException.class, () -> new ResourceNames("rdma/hca", "rdma/hca"))
            .getMessage());
    assertEquals(
        "the HCA resource 'hca' is not an extended resource name (it needs a domain and a name, e.g."
            + " rdma/hca)",
        assertThrows(
                IllegalArgumentException.class, () -> new ResourceNames("nvidia.com/gpu", "hca"))
            .getMessage());
  }

  @Test
  @DisplayName("native resources, as Kubernetes' IsNativeResource: no domain, or kubernetes.io")
  void isNative() {
    for (String name :
        List.of("cpu", "memory", "hugepages-2Mi", "kubernetes.io/x", "a.kubernetes.io/b")) {
      assertTrue(ResourceNames.isNative(name), name);
    }
    assertFalse(ResourceNames.isNative("nvidia.com/gpu"));
    assertFalse(ResourceNames.isNative("rdma/hca"));
  }
}
