package dev.tandem.agent.publish;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.CrdFile;
import dev.tandem.api.crd.DeviceEntry;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.crd.TestNodes;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose mlx5_1 has no RDMA driver (its PCI function is there, /sys/class/infiniband does not
 * list it), discovered from its sysfs tree and published by the agent's loop.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class DriverlessHcaMockTest {

  static KubernetesClient client;

  private static final String DRIVERLESS = "0000:21:00.0";

  @Test
  @DisplayName(
      "the driverless HCA is published unhealthy with a note naming its PCI address and the fix;"
          + " the extender's availability gives it no unit")
  void publishedUnhealthy(@TempDir Path root) throws Exception {
    CrdFile.install(client);
    TestNodes.create(client, "gpu-1");
    FakeSysfs.write(
        root,
        TestMachines.withoutRdmaDriver(TestMachines.twoSwitchesAndLoneHca("gpu-1"), "mlx5_1"));
    Vertx vertx = Vertx.vertx();
    PublishLoop loop =
        new PublishLoop(
            vertx,
            TopologySources.create(DiscoveryOptions.sysfs("gpu-1", root)),
            new NodeTopologyPublisher(client, "gpu-1"),
            ResourceNames.DEFAULT,
            Duration.ofHours(1),
            new Backoff(Duration.ofMillis(50), Duration.ofMillis(200)),
            Clock.systemUTC());
    try {
      loop.start();
      await("published")
          .atMost(Duration.ofSeconds(10))
          .until(() -> read() != null && read().getStatus() != null);
    } finally {
      loop.stop();
      vertx.close().await();
    }

    DeviceEntry entry =
        read().getSpec().devices().stream()
            .filter(e -> e.id().equals(DRIVERLESS))
            .findFirst()
            .orElseThrow();
    assertEquals("HCA", entry.kind());
    assertFalse(entry.healthy());
    assertTrue(
        read().getStatus().notes().stream()
            .anyMatch(n -> n.contains("HCA at PCI " + DRIVERLESS) && n.contains("mlx5_ib")),
        read().getStatus().notes().toString());
    Machine published = NodeTopologyMapper.toMachine(read());
    Availability free = Availability.allFree(LocalityIndex.of(published), 1);
    assertEquals(0, free.free(DRIVERLESS));
    assertEquals(1, free.free("mlx5_0"));
  }

  private static NodeTopology read() {
    return client.resources(NodeTopology.class).withName("gpu-1").get();
  }
}
