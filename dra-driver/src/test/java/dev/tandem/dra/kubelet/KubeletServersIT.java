package dev.tandem.dra.kubelet;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dra.cdi.CdiDirectory;
import dev.tandem.dra.health.HealthFeed;
import dev.tandem.dra.health.PoolHealth;
import dev.tandem.dra.prepare.AllocatedDevice;
import dev.tandem.dra.prepare.Checkpoint;
import dev.tandem.dra.prepare.ClaimAllocation;
import dev.tandem.dra.prepare.Preparer;
import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.KubeletGrpcClient;
import dev.tandem.kubelet.dra.v1.Claim;
import dev.tandem.kubelet.dra.v1.DRAPluginGrpcClient;
import dev.tandem.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.tandem.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.tandem.kubelet.drahealth.v1.DRAResourceHealthGrpcClient;
import dev.tandem.kubelet.drahealth.v1.DeviceHealth;
import dev.tandem.kubelet.drahealth.v1.HealthStatus;
import dev.tandem.kubelet.drahealth.v1.NodeWatchResourcesRequest;
import dev.tandem.kubelet.drahealth.v1.NodeWatchResourcesResponse;
import dev.tandem.kubelet.pluginregistration.v1.InfoRequest;
import dev.tandem.kubelet.pluginregistration.v1.PluginInfo;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationGrpcClient;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationStatus;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registration and DRA servers on real Unix sockets, called as the kubelet calls them (a Vert.x
 * gRPC client with {@code :authority: localhost}): GetInfo names the DRA socket and v1; Prepare and
 * Unprepare answer per claim, survive a restart of the servers over the same checkpoint, and remove
 * their sockets on stop; the health stream on the DRA socket tells each watching kubelet the pool's
 * health.
 */
@DisplayName("the DRA driver's kubelet sockets: registration and DRAPlugin v1 over Unix sockets")
class KubeletServersIT {

  static final String UID = "0b0e5d7a-0000-4000-8000-000000000042";

  @TempDir Path dir;

  final Vertx vertx = Vertx.vertx();
  final Machine machine = TestMachines.twoSwitchesAndLoneHca("n1");
  final Map<String, ClaimAllocation> claims =
      Map.of(
          "team/c1",
          new ClaimAllocation(
              UID,
              true,
              List.of(
                  new AllocatedDevice("gpus", "tandem.dev", "n1", "gpu-a0"),
                  new AllocatedDevice("hcas", "tandem.dev", "n1", "mlx5-0"))),
          "team/elsewhere",
          new ClaimAllocation(
              "uid-2", true, List.of(new AllocatedDevice("hcas", "tandem.dev", "n9", "mlx5-0"))));

  @AfterEach
  void close() {
    vertx.close().await();
  }

  Preparer preparer() {
    return new Preparer(
        "tandem.dev",
        () -> PoolBuilder.build(machine, PoolSpec.joint()),
        (ns, name) -> Optional.ofNullable(claims.get(ns + "/" + name)),
        new CdiDirectory(dir.resolve("cdi")),
        dir.resolve("devinfo"),
        Checkpoint.open(dir.resolve("checkpoint.json")),
        "rdma/hca");
  }

  GrpcClient client() {
    return KubeletGrpcClient.create(vertx);
  }

  static SocketAddress at(Path socket) {
    return SocketAddress.domainSocketAddress(socket.toString());
  }

  @Test
  @DisplayName(
      "GetInfo: type DRAPlugin, the driver, the DRA socket, v1.DRAPlugin; the verdict heard")
  void registration() {
    Path reg = dir.resolve("tandem.dev-reg.sock");
    Path dra = dir.resolve("dra.sock");
    List<RegistrationStatus> heard = new CopyOnWriteArrayList<>();
    RegistrationServer server =
        RegistrationServer.start(vertx, reg, "tandem.dev", dra, heard::add).await();
    RegistrationGrpcClient kubelet = RegistrationGrpcClient.create(client(), at(reg));
    PluginInfo info = kubelet.getInfo(InfoRequest.getDefaultInstance()).await();
    assertEquals("DRAPlugin", info.getType());
    assertEquals("tandem.dev", info.getName());
    assertEquals(dra.toAbsolutePath().toString(), info.getEndpoint());
    assertEquals(List.of("v1.DRAPlugin", "v1.DRAResourceHealth"), info.getSupportedVersionsList());
    RegistrationStatus refused =
        RegistrationStatus.newBuilder().setPluginRegistered(false).setError("bad").build();
    kubelet.notifyRegistrationStatus(refused).await();
    assertEquals(List.of(refused), heard);
    server.stop().await();
    assertFalse(Files.exists(reg), "the socket is removed, so the kubelet deregisters");
  }

  @Test
  @DisplayName("Prepare: devices and CDI ids per claim, another node's claim its own error")
  void prepareAndUnprepare() {
    Path socket = dir.resolve("dra.sock");
    DraServer server = DraServer.start(vertx, socket, preparer(), new HealthFeed()).await();
    DRAPluginGrpcClient kubelet = DRAPluginGrpcClient.create(client(), at(socket));
    Claim c1 = Claim.newBuilder().setNamespace("team").setName("c1").setUid(UID).build();
    Claim c2 = Claim.newBuilder().setNamespace("team").setName("elsewhere").setUid("uid-2").build();
    var answer =
        kubelet
            .nodePrepareResources(
                NodePrepareResourcesRequest.newBuilder().addClaims(c1).addClaims(c2).build())
            .await();
    NodePrepareResourceResponse first = answer.getClaimsOrThrow(UID);
    assertEquals("", first.getError());
    assertEquals(2, first.getDevicesCount());
    assertEquals("gpu-a0", first.getDevices(0).getDeviceName());
    assertEquals("n1", first.getDevices(0).getPoolName());
    assertEquals(List.of("gpus"), first.getDevices(0).getRequestNamesList());
    assertEquals(List.of("nvidia.com/gpu=GPU-a0"), first.getDevices(0).getCdiDeviceIdsList());
    assertEquals(
        List.of("tandem.dev/hca=" + UID + "-mlx5-0"), first.getDevices(1).getCdiDeviceIdsList());
    String error = answer.getClaimsOrThrow("uid-2").getError();
    assertTrue(error.startsWith("claim team/elsewhere was given device mlx5-0 of pool n9"), error);
    Path spec = dir.resolve("cdi").resolve("tandem.dev-hca_" + UID + ".json");
    assertTrue(Files.exists(spec));

    // the driver restarts: a new server over the same checkpoint answers Unprepare
    server.stop().await();
    assertFalse(Files.exists(socket));
    DraServer again = DraServer.start(vertx, socket, preparer(), new HealthFeed()).await();
    var undone =
        DRAPluginGrpcClient.create(client(), at(socket))
            .nodeUnprepareResources(
                NodeUnprepareResourcesRequest.newBuilder().addClaims(c1).addClaims(c2).build())
            .await();
    assertEquals("", undone.getClaimsOrThrow(UID).getError());
    assertEquals("", undone.getClaimsOrThrow("uid-2").getError());
    assertFalse(Files.exists(spec));
    again.stop().await();
  }

  @Test
  @DisplayName(
      "health stream on the DRA socket: every device at once, again on each new health; a"
          + " kubelet that goes away is no longer told")
  void healthStream() throws Exception {
    Path socket = dir.resolve("dra.sock");
    NodePool pool = PoolBuilder.build(machine, PoolSpec.joint());
    HealthFeed feed = new HealthFeed();
    feed.publish(PoolHealth.of(pool, Instant.ofEpochSecond(1_000), Duration.ofSeconds(180)));
    DraServer server = DraServer.start(vertx, socket, preparer(), feed).await();
    GrpcClient grpc = client();
    BlockingQueue<NodeWatchResourcesResponse> heard = new LinkedBlockingQueue<>();
    DRAResourceHealthGrpcClient.create(grpc, at(socket))
        .nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance())
        .onSuccess(stream -> stream.handler(heard::add));

    NodeWatchResourcesResponse first = heard.poll(10, TimeUnit.SECONDS);
    assertEquals(pool.devices().size(), first.getDevicesCount());
    assertEquals(
        pool.devices().stream().map(d -> d.name()).toList(),
        first.getDevicesList().stream().map(d -> d.getDevice().getDeviceName()).toList());
    DeviceHealth one = first.getDevices(0);
    assertEquals("n1", one.getDevice().getPoolName());
    assertEquals(HealthStatus.HEALTHY, one.getHealth());
    assertEquals(1_000, one.getLastUpdatedTime());
    assertEquals(180, one.getHealthCheckTimeoutSeconds());

    feed.publish(
        PoolHealth.unknown(pool, Instant.ofEpochSecond(1_060), Duration.ZERO, "sysfs unreadable"));
    NodeWatchResourcesResponse second = heard.poll(10, TimeUnit.SECONDS);
    assertTrue(
        second.getDevicesList().stream()
            .allMatch(
                d ->
                    d.getHealth() == HealthStatus.UNKNOWN
                        && d.getMessage().equals("sysfs unreadable")
                        && d.getLastUpdatedTime() == 1_060),
        second.toString());
    assertEquals(1, feed.subscribers());

    grpc.close().await();
    await().atMost(Duration.ofSeconds(10)).until(() -> feed.subscribers() == 0);
    server.stop().await();
  }
}
