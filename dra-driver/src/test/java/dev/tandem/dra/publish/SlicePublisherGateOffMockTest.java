package dev.tandem.dra.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dra.slices.HcaShape;
import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "ResourceSlices against an API server that drops fields (feature gates off, Kubernetes"
        + " 1.34-1.35): one write per real change, none per rediscovery or restart")
class SlicePublisherGateOffMockTest {

  static final int ROUNDS = 5;

  GateOffApiServer server;

  @AfterEach
  void close() {
    server.close();
  }

  void start(Set<DroppedField> dropping) {
    server = new GateOffApiServer(dropping);
    server
        .client()
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
        .create();
  }

  static Machine healthy() {
    return TestMachines.twoSwitchesAndLoneHca("n1");
  }

  /** The machine with the port of HCA {@code ib} DOWN: its device published tainted. */
  static Machine portDown(Machine m, String ib) {
    return withHca(m, ib, d -> d.toBuilder().hca(d.hca().toBuilder().portState("DOWN").build()));
  }

  /** The machine with HCA {@code ib} found unhealthy: a taint is its device's only change. */
  static Machine unhealthy(Machine m, String ib) {
    return withHca(m, ib, d -> d.toBuilder().healthy(false));
  }

  static Machine withHca(Machine m, String ib, Function<Device, Device.Builder> change) {
    List<Device> devices =
        m.devices().stream()
            .map(
                d ->
                    d.hca() == null || !ib.equals(d.hca().ibDevice()) ? d : change.apply(d).build())
            .toList();
    return new Machine(m.nodeName(), m.source(), m.pcie(), devices);
  }

  static NodePool joint(Machine m) {
    return PoolBuilder.build(m, PoolSpec.joint());
  }

  /** Publishes {@code pool} {@code times} times with one publisher; the writes they made. */
  int writes(SlicePublisher publisher, NodePool pool, int times) {
    int before = server.sliceWrites();
    for (int i = 0; i < times; i++) {
      publisher.publish(pool);
    }
    return server.sliceWrites() - before;
  }

  ResourceSlice slice() {
    List<ResourceSlice> all =
        server.client().dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
    assertEquals(1, all.size());
    return all.get(0);
  }

  @Test
  @DisplayName(
      "a port DOWN: written once, then no write for the rounds after; the drop is named, and the"
          + " port back up is written once")
  void healthChange() {
    start(Set.of(DroppedField.DEVICE_TAINTS));
    SlicePublisher publisher = new SlicePublisher(server.client());
    assertEquals(1, writes(publisher, joint(healthy()), 1));
    assertEquals(Set.of(), publisher.dropped(), "nothing to drop in a healthy pool");

    NodePool down = joint(portDown(healthy(), "mlx5_0"));
    assertTrue(down.devices().stream().anyMatch(d -> !d.taints().isEmpty()), "a tainted device");
    assertEquals(1, writes(publisher, down, 1));
    assertEquals(2L, slice().getSpec().getPool().getGeneration());
    assertTrue(
        slice().getSpec().getDevices().stream()
            .allMatch(d -> d.getTaints() == null || d.getTaints().isEmpty()),
        "the server kept no taint");
    assertEquals(Set.of(DroppedField.DEVICE_TAINTS), publisher.dropped());
    assertEquals(0, writes(publisher, down, ROUNDS));

    assertEquals(1, writes(publisher, joint(healthy()), ROUNDS));
    assertEquals(3L, slice().getSpec().getPool().getGeneration());
  }

  @Test
  @DisplayName(
      "a device found unhealthy, then healthy again, the taint its only change: each written once")
  void taintOnly() {
    start(Set.of(DroppedField.DEVICE_TAINTS));
    SlicePublisher publisher = new SlicePublisher(server.client());
    publisher.publish(joint(healthy()));
    assertEquals(1, writes(publisher, joint(unhealthy(healthy(), "mlx5_2")), ROUNDS));
    assertEquals(1, writes(publisher, joint(healthy()), ROUNDS));
    assertEquals(3L, slice().getSpec().getPool().getGeneration());
  }

  @Test
  @DisplayName(
      "a restarted driver on an unchanged node with a port DOWN writes nothing, and names the drop")
  void restart() {
    start(Set.of(DroppedField.DEVICE_TAINTS));
    NodePool down = joint(portDown(healthy(), "mlx5_0"));
    new SlicePublisher(server.client()).publish(down);
    SlicePublisher restarted = new SlicePublisher(server.client());
    assertEquals(0, writes(restarted, down, ROUNDS));
    assertEquals(Set.of(DroppedField.DEVICE_TAINTS), restarted.dropped());
  }

  @Test
  @DisplayName("a real change is still written once: an RDMA driver unloaded, a device gone")
  void realChange() {
    start(Set.of(DroppedField.DEVICE_TAINTS));
    SlicePublisher publisher = new SlicePublisher(server.client());
    NodePool down = joint(portDown(healthy(), "mlx5_0"));
    publisher.publish(down);
    NodePool unloaded =
        joint(portDown(TestMachines.withoutRdmaDriver(healthy(), "mlx5_1"), "mlx5_0"));
    assertEquals(1, writes(publisher, unloaded, ROUNDS));
    NodePool hcasOnly =
        PoolBuilder.build(
            portDown(healthy(), "mlx5_0"), new PoolSpec(PoolSpec.DEFAULT_DRIVER, false));
    assertEquals(1, writes(publisher, hcasOnly, ROUNDS));
    assertEquals(hcasOnly.devices().size(), slice().getSpec().getDevices().size());
  }

  @Test
  @DisplayName("shared HCAs on a server without DRAConsumableCapacity: written once, then no write")
  void sharedDropped() {
    start(Set.of(DroppedField.DEVICE_TAINTS, DroppedField.CONSUMABLE_CAPACITY));
    SlicePublisher publisher = new SlicePublisher(server.client());
    NodePool shared =
        PoolBuilder.build(
            portDown(healthy(), "mlx5_0"),
            new PoolSpec(PoolSpec.DEFAULT_DRIVER, true, HcaShape.SHARED, 1000));
    assertEquals(1, writes(publisher, shared, ROUNDS));
    assertEquals(
        Set.of(DroppedField.DEVICE_TAINTS, DroppedField.CONSUMABLE_CAPACITY), publisher.dropped());
    assertEquals(0, writes(new SlicePublisher(server.client()), shared, ROUNDS));
  }

  @Test
  @DisplayName("a server that keeps every field: a port DOWN is written once and nothing is named")
  void gatesOn() {
    start(Set.of());
    SlicePublisher publisher = new SlicePublisher(server.client());
    publisher.publish(joint(healthy()));
    assertEquals(1, writes(publisher, joint(portDown(healthy(), "mlx5_0")), ROUNDS));
    assertEquals(Set.of(), publisher.dropped());
    assertTrue(
        slice().getSpec().getDevices().stream()
            .anyMatch(d -> d.getTaints() != null && !d.getTaints().isEmpty()));
  }
}
