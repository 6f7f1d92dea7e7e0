package dev.tandem.deviceplugin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.lifecycle.PluginSockets;
import dev.tandem.deviceplugin.standin.KubeletStandIn;
import dev.tandem.deviceplugin.standin.StandInWiring;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.DeviceSpec;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import dev.tandem.kubelet.serve.SocketIdentity;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("device plugin against a kubelet stand-in on real Unix sockets")
@ExtendWith(VertxExtension.class)
class DevicePluginIT {

  /**
   * How long a test waits for what must happen: long enough for a loaded machine. How soon it
   * happens is for benchmarks to measure, not for these tests to assert.
   */
  static final Duration PATIENCE = Duration.ofSeconds(15);

  @TempDir Path sysfs;
  Path dir;
  Vertx vertx;
  KubeletStandIn kubelet;
  DevicePlugin plugin;
  Machine machine;
  Clock clock = Clock.systemUTC();

  @BeforeEach
  void setUp(Vertx vertx, KubeletStandIn kubelet) throws Exception {
    this.vertx = vertx;
    this.kubelet = kubelet;
    dir = kubelet.dir();
    machine = TestMachines.twoSockets("n1");
    FakeSysfs.write(sysfs, machine);
  }

  @AfterEach
  void tearDown() {
    if (plugin != null) {
      plugin.stop().await();
    }
  }

  private void startPlugin() {
    plugin = started(vertx);
  }

  private DevicePlugin started(Vertx vertx) {
    PluginWiring s =
        StandInWiring.of(
                machine,
                ResourceConfig.DEFAULT.withHealthInterval(Duration.ofSeconds(1)),
                dir,
                sysfs,
                kubelet)
            .clock(clock)
            .build();
    DevicePlugin p = new DevicePlugin(vertx, s);
    p.start().await();
    return p;
  }

  private ListAndWatchResponse firstList() throws InterruptedException {
    return nextList("no ListAndWatch message");
  }

  /** The next ListAndWatch message; fails saying what did not happen when none comes. */
  private ListAndWatchResponse nextList(String missing) throws InterruptedException {
    ListAndWatchResponse l = kubelet.nextList(PATIENCE.toMillis());
    assertNotNull(l, missing + " within " + PATIENCE);
    return l;
  }

  private static String health(ListAndWatchResponse l, String id) {
    return l.getDevicesList().stream()
        .filter(d -> d.getID().equals(id))
        .findFirst()
        .orElseThrow()
        .getHealth();
  }

  @Test
  @DisplayName(
      "registers rdma/hca with :authority localhost, after answering GetDevicePluginOptions inside Register")
  void registers() throws Exception {
    startPlugin();
    ListAndWatchResponse list = firstList();
    assertEquals(1, kubelet.registrations().size());
    assertEquals("rdma/hca", kubelet.registrations().get(0).getResourceName());
    assertEquals("v1beta1", kubelet.registrations().get(0).getVersion());
    String endpoint = kubelet.registrations().get(0).getEndpoint();
    assertTrue(
        endpoint.matches("tandem-rdma-[0-9a-f]{12}\\.sock"),
        "endpoint " + endpoint + ", want tandem-rdma-<12 hex digits>.sock");
    assertEquals(Optional.of(dir.resolve(endpoint)), plugin.hca().lifecycle().socket());
    assertTrue(kubelet.options().get(0).getGetPreferredAllocationAvailable());
    assertEquals(List.of("localhost"), kubelet.authorities());
    assertEquals(
        List.of("mlx5_0", "mlx5_1"), list.getDevicesList().stream().map(d -> d.getID()).toList());
    assertEquals("Healthy", health(list, "mlx5_0"));
    assertEquals(1, list.getDevices(1).getTopology().getNodes(0).getID());
  }

  @Test
  @DisplayName("a port going down and coming back reaches the open ListAndWatch stream both times")
  void healthFlips() throws Exception {
    startPlugin();
    firstList();
    FakeSysfs.portState(sysfs, "mlx5_1", "1: DOWN");
    ListAndWatchResponse down = kubelet.nextList(5000);
    assertNotNull(down, "health change not streamed");
    assertEquals("Unhealthy", health(down, "mlx5_1"));
    assertEquals("Healthy", health(down, "mlx5_0"));
    FakeSysfs.portState(sysfs, "mlx5_1", "4: ACTIVE");
    ListAndWatchResponse up = kubelet.nextList(5000);
    assertNotNull(up, "recovery not streamed");
    assertEquals("Healthy", health(up, "mlx5_1"));
  }

  @Test
  @DisplayName(
      "a kubelet restart (sockets removed and re-created) is followed by a second registration and"
          + " the plugin's socket served again")
  void reregisters() throws Exception {
    startPlugin();
    firstList();
    assertEquals(1, kubelet.registrations().size());
    kubelet.restart().await();
    nextList("no re-registration after the kubelet restart");
    assertEquals(2, kubelet.registrations().size());
    Path served = plugin.hca().lifecycle().socket().orElseThrow();
    assertTrue(Files.exists(served));
    assertEquals(served.getFileName().toString(), kubelet.registrations().get(1).getEndpoint());
    assertNotEquals(
        kubelet.registrations().get(0).getEndpoint(),
        kubelet.registrations().get(1).getEndpoint(),
        "a path served twice: a 1.37 kubelet refuses it while it still knows it");
  }

  @Test
  @DisplayName("a cancelled ListAndWatch stream leads to a new server and a new registration")
  void streamCancelled() throws Exception {
    startPlugin();
    firstList();
    kubelet.cancelStream();
    nextList("no re-registration after the stream was cancelled");
    assertEquals(2, kubelet.registrations().size());
  }

  @Test
  @DisplayName(
      "a storm of cancelled streams still ends registered, the restarts after the third slowed by"
          + " backoff")
  void restartStorm() throws Exception {
    // a clock that stands still: the five restarts fall within one 10 s window however long they
    // take on this machine
    clock = Clock.fixed(Instant.parse("2026-11-22T03:00:00Z"), ZoneOffset.UTC);
    startPlugin();
    firstList();
    for (int i = 0; i < 5; i++) {
      kubelet.cancelStream();
      nextList("no re-registration after cancel " + (i + 1));
      assertEquals(
          Math.max(0, i + 1 - 3),
          plugin.hca().lifecycle().slowedRestarts(),
          "restarts slowed by backoff after cancel " + (i + 1));
    }
    assertEquals(6, kubelet.registrations().size());
  }

  @Test
  @DisplayName(
      "with the kubelet socket absent at start, the plugin waits and registers when it appears")
  void waitsForKubelet() throws Exception {
    kubelet.stop().await();
    startPlugin();
    // seen looking twice and finding no socket: it is waiting, not registered, not failed
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> plugin.hca().lifecycle().kubeletAbsentChecks() >= 2);
    assertEquals(0, kubelet.registrations().size());
    assertFalse(plugin.hca().lifecycle().failed().isComplete(), "gave up waiting for the kubelet");
    kubelet.start().await();
    nextList("did not register after kubelet.sock appeared");
  }

  @Test
  @DisplayName(
      "GetPreferredAllocation and Allocate answer what the kubelet sends: exact size, uverbs + rdma_cm rw, env")
  void allocates() throws Exception {
    startPlugin();
    firstList();
    PreferredAllocationResponse pref =
        kubelet.preferred(
            PreferredAllocationRequest.newBuilder()
                .addContainerRequests(
                    ContainerPreferredAllocationRequest.newBuilder()
                        .addAllAvailableDeviceIDs(List.of("mlx5_0", "mlx5_1"))
                        .addMustIncludeDeviceIDs("mlx5_1")
                        .setAllocationSize(1))
                .build());
    assertEquals(List.of("mlx5_1"), pref.getContainerResponses(0).getDeviceIDsList());
    AllocateResponse r =
        kubelet.allocate(
            AllocateRequest.newBuilder()
                .addContainerRequests(
                    ContainerAllocateRequest.newBuilder()
                        .addDevicesIds("mlx5_1")
                        .addDevicesIds("mlx5_0"))
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds("mlx5_0"))
                .build());
    assertEquals(2, r.getContainerResponsesCount());
    ContainerAllocateResponse c = r.getContainerResponses(0);
    assertEquals(
        List.of("/dev/infiniband/uverbs1", "/dev/infiniband/uverbs0", "/dev/infiniband/rdma_cm"),
        c.getDevicesList().stream().map(DeviceSpec::getHostPath).toList());
    assertTrue(c.getDevicesList().stream().allMatch(d -> d.getPermissions().equals("rw")));
    assertEquals("=mlx5_1,mlx5_0", c.getEnvsMap().get("NCCL_IB_HCA"));
    assertEquals("mlx5_1:1,mlx5_0:1", c.getEnvsMap().get("UCX_NET_DEVICES"));
    assertEquals("mlx5_1,mlx5_0", c.getEnvsMap().get("TANDEM_RDMA_DEVICES"));
  }

  @Test
  @DisplayName("Allocate of unknown ids fails with a message naming them")
  void unknownIds() throws Exception {
    startPlugin();
    firstList();
    String status =
        kubelet.allocateStatus(
            AllocateRequest.newBuilder()
                .addContainerRequests(
                    ContainerAllocateRequest.newBuilder()
                        .addDevicesIds("mlx5_7")
                        .addDevicesIds("mlx5_0"))
                .build());
    assertTrue(
        status.startsWith("INVALID_ARGUMENT: unknown rdma/hca device id mlx5_7 on node n1"),
        status);
  }

  @Test
  @DisplayName(
      "failed registrations are retried with backoff, then the plugin gives up naming the kubelet socket")
  void boundedRetries() throws Exception {
    kubelet.refuseRegistrations();
    startPlugin();
    Throwable e =
        plugin
            .hca()
            .lifecycle()
            .failed()
            .transform(ar -> Future.succeededFuture(ar.cause()))
            .await(10, TimeUnit.SECONDS);
    assertEquals(5, kubelet.registrations().size());
    assertTrue(
        e.getMessage()
                .contains(
                    "could not register with the kubelet at "
                        + kubelet.socket()
                        + " after 5 attempts")
            && e.getMessage().contains("UNKNOWN: registration refused by the stand-in"),
        e.getMessage());
  }

  @Test
  @DisplayName("SIGTERM-style stop removes the plugin socket")
  void stopRemovesSocket() throws Exception {
    startPlugin();
    firstList();
    Path served = plugin.hca().lifecycle().socket().orElseThrow();
    plugin.stop().await();
    plugin = null;
    assertFalse(Files.exists(served));
    assertEquals(List.of(), sockets().existing());
  }

  private PluginSockets sockets() {
    return new PluginSockets(dir.resolve("tandem-rdma.sock"));
  }

  @Test
  @DisplayName(
      "two plugin processes (a rolling update) serve on sockets of their own, both registered; the"
          + " one stopping removes its socket and nothing of the other's")
  void overlappingPluginsServeSideBySide() throws Exception {
    // its own Vert.x, as in its own process: servers of one Vert.x on one address are shared
    Vertx oldProcess = Vertx.vertx();
    DevicePlugin old = started(oldProcess);
    firstList();
    Path oldSocket = old.hca().lifecycle().socket().orElseThrow();
    startPlugin(); // the new pod
    firstList();
    Path newSocket = plugin.hca().lifecycle().socket().orElseThrow();
    assertNotEquals(oldSocket, newSocket);
    assertEquals(
        List.of(oldSocket.getFileName().toString(), newSocket.getFileName().toString()),
        kubelet.registrations().stream().map(r -> r.getEndpoint()).toList());
    assertEquals(List.of(newSocket, oldSocket).stream().sorted().toList(), sockets().existing());
    Optional<String> newIdentity = SocketIdentity.of(newSocket);
    assertTrue(old.hca().lifecycle().notRegistered().isEmpty(), "the old one stays registered");
    old.stop().await();
    oldProcess.close().await();
    assertFalse(Files.exists(oldSocket), "the old plugin left its socket behind");
    assertEquals(
        newIdentity, SocketIdentity.of(newSocket), "the old plugin removed the new one's socket");
    assertTrue(plugin.hca().lifecycle().notRegistered().isEmpty());
    // the new plugin saw nothing to recover from (the stand-in, like a 1.37 kubelet, keeps it
    // connected): no third registration over three of its 200 ms socket checks
    await()
        .during(Duration.ofMillis(600))
        .atMost(Duration.ofSeconds(2))
        .until(
            () ->
                kubelet.registrations().size() == 2
                    && newIdentity.equals(SocketIdentity.of(newSocket)));
  }

  @Test
  @DisplayName(
      "before serving, the plugin deletes its resource's sockets nobody listens on, and no other file")
  void removesStaleSockets() throws Exception {
    Path stale = deadSocket(dir.resolve("tandem-rdma-0123456789ab.sock"));
    Path staleLegacy = deadSocket(dir.resolve("tandem-rdma.sock"));
    Path otherResource = deadSocket(dir.resolve("tandem-gpu-0123456789ab.sock"));
    Path notASocketName = deadSocket(dir.resolve("tandem-rdma-old.sock"));
    try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      Path liveSocket = dir.resolve("tandem-rdma-ba9876543210.sock");
      live.bind(UnixDomainSocketAddress.of(liveSocket));
      startPlugin();
      firstList();
      Path served = plugin.hca().lifecycle().socket().orElseThrow();
      assertFalse(Files.exists(stale), "a dead process's socket left in place");
      assertFalse(Files.exists(staleLegacy), "a dead process's socket left in place");
      assertTrue(Files.exists(liveSocket), "a socket someone listens on was deleted");
      assertTrue(Files.exists(otherResource) && Files.exists(notASocketName), "not ours, deleted");
      assertEquals(List.of(liveSocket, served).stream().sorted().toList(), sockets().existing());
    }
  }

  /** A socket file whose listener has closed (Java leaves the file; a killed process too). */
  private static Path deadSocket(Path path) throws IOException {
    try (ServerSocketChannel c = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      c.bind(UnixDomainSocketAddress.of(path));
    }
    assertTrue(Files.exists(path));
    return path;
  }

  static String ids(ListAndWatchResponse l) {
    return l.getDevicesList().stream().map(d -> d.getID()).collect(Collectors.joining(","));
  }
}
