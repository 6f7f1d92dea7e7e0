package dev.tandem.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.api.dra.DraAttributes;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.RealMachines;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver applies the rail rule to the tree it discovers itself (docs/rails.md): its slices
 * carry {@code tandem.dev/rail}, by PCI order or as {@code --rail-map}'s entry for the Node's
 * labels says. An HGX H200 fixture as a sysfs tree, fabric8's mock API server.
 */
@EnableKubernetesMockClient(crud = true)
@DisplayName("the DRA driver's slices carry each HCA's rail")
class DraDriverRailsMockTest {

  static KubernetesClient client;

  @TempDir Path dir;

  final Vertx vertx = Vertx.vertx();

  @BeforeEach
  void node() {
    slices().forEach(s -> client.resource(s).delete());
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("n1")
                .addToLabels("tandem.dev/model", "hgx-h200")
                .endMetadata()
                .build())
        .createOr(existing -> existing.update());
  }

  static List<ResourceSlice> slices() {
    return client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
  }

  @AfterEach
  void close() {
    vertx.close().await();
  }

  @Test
  @DisplayName("without --rail-map: the eight GPU NICs on rails 0-7 by PCI order, the bond on none")
  void pciOrder() throws Exception {
    Map<String, Device> hcas = published();
    String[] nics = {
      "mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9"
    };
    for (int i = 0; i < nics.length; i++) {
      assertEquals((long) i, rail(hcas.get(nics[i])), nics[i]);
    }
    assertNull(rail(hcas.get("mlx5_bond_0")), "the bond on its own root port");
  }

  @Test
  @DisplayName("--rail-map: the entry the Node's labels select, by ibverbs name")
  void mapping() throws Exception {
    Path map =
        Files.writeString(
            dir.resolve("rails.json"),
            """
            [{"nodeSelector": {"tandem.dev/model": "other"}, "rails": {"mlx5_0": 0}},
             {"nodeSelector": {"tandem.dev/model": "hgx-h200"},
              "rails": {"mlx5_0": 7, "mlx5_9": 0, "mlx5_bond_0": 3}}]
            """);
    Map<String, Device> hcas = published("--rail-map=" + map);
    assertEquals(7L, rail(hcas.get("mlx5_0")));
    assertEquals(0L, rail(hcas.get("mlx5_9")));
    assertEquals(3L, rail(hcas.get("mlx5_bond_0")));
    assertNull(rail(hcas.get("mlx5_3")), "an HCA the entry does not name is on no rail");
  }

  /** The HCAs of the driver's published slices by ibverbs name. */
  private Map<String, Device> published(String... extra) throws Exception {
    Path root = FakeSysfs.write(dir.resolve("root"), RealMachines.hgxH200());
    DraConfig config = DraConfig.parse(DraDriverMockTest.args(dir, root, extra), Map.of());
    DraDriver driver = DraDriver.start(vertx, config, client).await();
    try {
      Map<String, Device> out = new HashMap<>();
      slices().stream()
          .flatMap(s -> s.getSpec().getDevices().stream())
          .filter(d -> d.getAttributes().containsKey(DraAttributes.IB_DEVICE))
          .forEach(d -> out.put(d.getAttributes().get(DraAttributes.IB_DEVICE).getString(), d));
      assertEquals(9, out.size(), out.keySet().toString());
      return out;
    } finally {
      driver.stop().await();
    }
  }

  private static Long rail(Device d) {
    DeviceAttribute a = d.getAttributes().get(DraAttributes.RAIL);
    return a == null ? null : a.getInt();
  }
}
