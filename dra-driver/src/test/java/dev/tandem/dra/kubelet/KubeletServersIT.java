package dev.tandem.dra.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dra.cdi.CdiDirectory;
import dev.tandem.dra.cni.DeviceInfoDirectory;
import dev.tandem.dra.prepare.AllocatedDevice;
import dev.tandem.dra.prepare.Checkpoint;
import dev.tandem.dra.prepare.ClaimAllocation;
import dev.tandem.dra.prepare.Preparer;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.KubeletGrpcClient;
import dev.tandem.kubelet.dra.v1.Claim;
import dev.tandem.kubelet.dra.v1.DRAPluginGrpcClient;
import dev.tandem.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.tandem.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourcesRequest;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registration and DRA servers on real Unix sockets, called as the kubelet calls them (a Vert.x
 * gRPC client with {@code :authority: localhost}): GetInfo names the DRA socket and v1; Prepare and
 * Unprepare answer per claim, survive a restart of the servers over the same checkpoint, and remove
 * their sockets on stop.
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
        () -> machine,
        (ns, name) -> Optional.ofNullable(claims.get(ns + "/" + name)),
        new CdiDirectory(dir.resolve("cdi")),
        new DeviceInfoDirectory(dir.resolve("devinfo")),
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
    assertEquals(List.of("v1.DRAPlugin"), info.getSupportedVersionsList());
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
    DraServer server = DraServer.start(vertx, socket, preparer()).await();
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
    DraServer again = DraServer.start(vertx, socket, preparer()).await();
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
}
