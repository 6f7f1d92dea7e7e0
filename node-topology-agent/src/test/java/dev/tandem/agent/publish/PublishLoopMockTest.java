package dev.tandem.agent.publish;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.CrdFile;
import dev.tandem.api.crd.MigEntry;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.crd.TestNodes;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.TopologySource;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@EnableKubernetesMockClient(crud = true, https = false)
@ExtendWith(VertxExtension.class)
class PublishLoopMockTest {

  static KubernetesClient client;

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Backoff FAST = new Backoff(Duration.ofMillis(50), Duration.ofMillis(200));

  private Vertx vertx;
  private PublishLoop loop;
  private final AtomicReference<Machine> discovered = new AtomicReference<>();
  private final AtomicInteger discoveries = new AtomicInteger();

  private final TopologySource source =
      () -> {
        discoveries.incrementAndGet();
        Machine m = discovered.get();
        if (m == null) {
          throw new IllegalStateException("libhwloc crashed");
        }
        return new Discovery(m, "test", List.of("read by test"));
      };

  @BeforeEach
  void setUp(Vertx vertx) {
    CrdFile.install(client);
    this.vertx = vertx;
  }

  @AfterEach
  void tearDown() {
    if (loop != null) {
      loop.stop();
    }
  }

  private PublishLoop start(Duration resync) {
    loop =
        new PublishLoop(
            vertx,
            source,
            new NodeTopologyPublisher(client, "gpu-1"),
            ResourceNames.DEFAULT,
            resync,
            FAST,
            Clock.systemUTC());
    loop.start();
    return loop;
  }

  private static NodeTopology read() {
    return client.resources(NodeTopology.class).withName("gpu-1").get();
  }

  @Test
  @DisplayName(
      "publishes at start, then at once when allocations change, without waiting for the resync")
  void publishesOnStartAndOnChange() {
    TestNodes.create(client, "gpu-1");
    discovered.set(TestMachines.twoSwitchesAndLoneHca("gpu-1"));
    start(Duration.ofHours(1));
    await("first publish").atMost(WAIT).until(() -> read() != null && read().getStatus() != null);
    assertEquals(TestMachines.twoSwitchesAndLoneHca("gpu-1"), NodeTopologyMapper.toMachine(read()));
    assertTrue(read().getStatus().notes().contains("read by test"));

    AllocationEntry a =
        new AllocationEntry("u1", "ml", "p", "c", "rdma/hca", List.of("mlx5_0"), false);
    loop.allocations(List.of(a), List.of(), List.of(), List.of(), List.of());
    await("allocation published")
        .atMost(WAIT)
        .until(() -> read().getStatus().allocations().equals(List.of(a)));
    assertEquals(1, discoveries.get());

    MigEntry mig = new MigEntry("GPU-a0", List.of("MIG-6a1e35b3-1c2d-5e0f-9a8b-7c6d5e4f3a21"));
    loop.allocations(List.of(a), List.of(), List.of(), List.of(), List.of(mig));
    await("MIG layout published")
        .atMost(WAIT)
        .until(() -> read().getStatus().mig().equals(List.of(mig)));
  }

  @Test
  @DisplayName("a failed discovery keeps the last good topology and says so in status.notes")
  void discoveryFailureKeepsLastGood() {
    TestNodes.create(client, "gpu-1");
    discovered.set(TestMachines.twoSwitchesAndLoneHca("gpu-1"));
    start(Duration.ofMillis(300));
    await("first publish").atMost(WAIT).until(() -> read() != null);

    discovered.set(null);
    await("failure noted")
        .atMost(WAIT)
        .until(
            () ->
                read().getStatus() != null
                    && read().getStatus().notes().stream()
                        .anyMatch(n -> n.contains("discovery failed")));
    NodeTopology t = read();
    assertEquals(TestMachines.twoSwitchesAndLoneHca("gpu-1"), NodeTopologyMapper.toMachine(t));
    assertTrue(t.getStatus().notes().stream().anyMatch(n -> n.contains("libhwloc crashed")));

    discovered.set(TestMachines.gpusOnRootPorts("gpu-1"));
    await("recovered")
        .atMost(WAIT)
        .until(
            () ->
                read().getSpec().summary().hcas() == 0
                    && read().getStatus().notes().stream()
                        .noneMatch(n -> n.contains("discovery failed")));
  }

  @Test
  @DisplayName(
      "after a restart with discovery failing, the object already published is kept, not emptied")
  void restartWithFailingDiscoveryKeepsPublished() {
    TestNodes.create(client, "gpu-1");
    new NodeTopologyPublisher(client, "gpu-1")
        .publish(NodeTopologyMapper.toSpec(TestMachines.twoSwitchesAndLoneHca("gpu-1")), null);

    start(Duration.ofHours(1));
    await("failure noted")
        .atMost(WAIT)
        .until(
            () ->
                read().getStatus() != null
                    && read().getStatus().notes().stream()
                        .anyMatch(n -> n.contains("discovery failed")));
    assertEquals(TestMachines.twoSwitchesAndLoneHca("gpu-1"), NodeTopologyMapper.toMachine(read()));
    assertEquals(TestMachines.twoSwitchesAndLoneHca("gpu-1"), loop.machine().orElseThrow());
  }

  @Test
  @DisplayName("API errors are retried with backoff until the object is published")
  void retriesWithBackoff() {
    discovered.set(TestMachines.twoSwitchesAndLoneHca("gpu-1"));
    start(Duration.ofHours(1));
    await("first failure").atMost(WAIT).until(() -> loop.lastError() != null);
    assertTrue(loop.lastError().contains("gpu-1"), loop.lastError());
    assertEquals(null, read());

    TestNodes.create(client, "gpu-1");
    await("published after retries")
        .atMost(WAIT)
        .until(() -> read() != null && read().getStatus() != null);
    await("success recorded")
        .atMost(WAIT)
        .until(() -> loop.lastError() == null && loop.lastSuccess() != null);
  }
}
