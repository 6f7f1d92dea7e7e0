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
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.NcclVm;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose mlx5_1 has no RDMA driver (its PCI function is there, /sys/class/infiniband does not
 * list it), discovered from its sysfs tree, and a VM read from its NCCL topology file with one NIC
 * in the same state, each published by the agent's loop.
 */
@EnableKubernetesMockClient(crud = true, https = false)
@ExtendWith(VertxExtension.class)
class DriverlessHcaMockTest {

  static KubernetesClient client;

  Vertx vertx;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  private static final String DRIVERLESS = "0000:21:00.0";

  @Test
  @DisplayName(
      "the driverless HCA is published unhealthy with a note naming its PCI address and the fix;"
          + " the extender's availability gives it no unit")
  void publishedUnhealthy(@TempDir Path root) throws Exception {
    FakeSysfs.write(
        root,
        TestMachines.withoutRdmaDriver(TestMachines.twoSwitchesAndLoneHca("gpu-1"), "mlx5_1"));

    published(TopologySources.create(DiscoveryOptions.sysfs("gpu-1", root)));

    assertPublishedUnhealthy(DRIVERLESS, "mlx5_ib", "mlx5_0");
  }

  @Test
  @DisplayName(
      "on an AWS p4d read from its NCCL topology file, an EFA without the efa driver is published"
          + " as on bare metal: unhealthy by its bus id, the same note; the others by ibverbs name")
  void vmNicPublishedUnhealthy(@TempDir Path root) throws Exception {
    NcclVm vm = NcclVm.AWS_P4D;
    Machine named =
        vm.named(
            TopologySources.discoverOnce(DiscoveryOptions.ncclTopo("gpu-1", vm.path())).machine());
    vm.write(root, TestMachines.withoutRdmaDriver(named, "efa_1"));
    String efa1 = named.device("efa_1").orElseThrow().address().toString();

    published(TopologySources.create(new DiscoveryOptions("gpu-1", null, root, vm.path(), false)));

    assertPublishedUnhealthy(efa1, "efa on AWS", "efa_0");
    Machine published = NodeTopologyMapper.toMachine(read());
    named.gpus().forEach(g -> assertTrue(published.device(g.id()).isPresent(), g.id()));
  }

  /** Runs the agent's publish loop on {@code source} until the NodeTopology has a status. */
  private void published(TopologySource source) {
    CrdFile.install(client);
    TestNodes.create(client, "gpu-1");
    PublishLoop loop =
        new PublishLoop(
            vertx,
            source,
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
    }
  }

  /**
   * The HCA at {@code address} is published unhealthy by its address with the note naming it and
   * {@code fix}; the extender gives it no unit and {@code named} one.
   */
  private static void assertPublishedUnhealthy(String address, String fix, String named) {
    DeviceEntry entry =
        read().getSpec().devices().stream()
            .filter(e -> e.id().equals(address))
            .findFirst()
            .orElseThrow();
    assertEquals("HCA", entry.kind());
    assertFalse(entry.healthy());
    assertTrue(
        read().getStatus().notes().stream()
            .anyMatch(n -> n.contains("HCA at PCI " + address) && n.contains(fix)),
        read().getStatus().notes().toString());
    Machine published = NodeTopologyMapper.toMachine(read());
    Availability free = Availability.allFree(LocalityIndex.of(published), 1);
    assertEquals(0, free.free(address));
    assertEquals(1, free.free(named));
  }

  private static NodeTopology read() {
    return client.resources(NodeTopology.class).withName("gpu-1").get();
  }
}
