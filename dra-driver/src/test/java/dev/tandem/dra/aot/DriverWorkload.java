package dev.tandem.dra.aot;

import static org.awaitility.Awaitility.await;

import dev.tandem.dra.claims.AllocatedClaims;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.PodJvmOptions;
import dev.tandem.fixtures.ProcessFootprint;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.Topologies;
import dev.tandem.fixtures.kube.MockApiServer;
import dev.tandem.kubelet.KubeletGrpcClient;
import dev.tandem.kubelet.dra.v1.Claim;
import dev.tandem.kubelet.dra.v1.DRAPluginGrpcClient;
import dev.tandem.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.tandem.kubelet.dra.v1.NodePrepareResourcesResponse;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import dev.tandem.kubelet.drahealth.v1.DRAResourceHealthGrpcClient;
import dev.tandem.kubelet.drahealth.v1.NodeWatchResourcesRequest;
import dev.tandem.kubelet.drahealth.v1.NodeWatchResourcesResponse;
import dev.tandem.kubelet.pluginregistration.v1.InfoRequest;
import dev.tandem.kubelet.pluginregistration.v1.PluginInfo;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationGrpcClient;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationStatus;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The DRA driver's hot path as a node lives it, played against the jar (or the classes) in a
 * process of its own: the driver on the Dell XE8640 (its hwloc export, the HCAs' uverbs devices in
 * a sysfs tree of the same machine, {@link FakeSysfs}) in its default HCA-only mode, publishing to
 * the fabric8 mock API server (CRUD mode, the Node created); this JVM plays the kubelet: its plugin
 * watcher finds the registration socket, asks GetInfo and reports the driver registered, waits for
 * {@code /readyz}, opens the health stream on the DRA socket, then prepares and unprepares {@code
 * claims} allocated ResourceClaims (one or two HCAs each, one or two claims per call) over the DRA
 * socket. Figures are read, then SIGTERM ends the driver (and its JVM writes an AOT cache when told
 * to). Used by {@link AotTraining}, {@link StartupBenchmark} and the unusable-cache IT.
 */
public final class DriverWorkload {

  /** The DaemonSet, whose JAVA_TOOL_OPTIONS the driver runs with. */
  public static final String DAEMONSET = "manifests/overlays/dra/daemonset-dra-driver.yaml";

  static final String NODE = "xe8640";
  static final String DRIVER = "tandem.dev";
  private static final String NAMESPACE = "ml";
  private static final Duration READY_WITHIN = Duration.ofMinutes(2);

  /**
   * What one run measured.
   *
   * @param readyMs from the process start to {@code /readyz} answering 200: the kubelet registered
   *     the driver and its ResourceSlices are published
   * @param slices the ResourceSlices published
   * @param devices the devices in them
   * @param prepared claims prepared and unprepared
   * @param claimsMs the time all Prepare and Unprepare calls took
   * @param rssMib resident memory after the calls
   * @param hwmMib peak resident memory until then
   */
  public record Figures(
      long readyMs,
      int slices,
      int devices,
      int prepared,
      long claimsMs,
      double rssMib,
      double hwmMib) {
    @Override
    public String toString() {
      return String.format(
          "ready %d ms after its start (%d ResourceSlice(s), %d devices); %d claims prepared and"
              + " unprepared in %d ms; RSS %.1f MiB (VmHWM %.1f MiB)",
          readyMs, slices, devices, prepared, claimsMs, rssMib, hwmMib);
    }
  }

  private DriverWorkload() {}

  /** The DaemonSet's JVM options (without the image's cache). */
  public static List<String> daemonSetOptions() {
    return PodJvmOptions.of(DAEMONSET);
  }

  /** How to start the shaded jar: {@code -jar JAR}. */
  public static List<String> jar(Path jar) {
    return List.of("-jar", jar.toAbsolutePath().toString());
  }

  /**
   * One driver process, {@code java jvm launch flags}, with its log at {@code dir/driver.log}.
   *
   * @throws Exception naming the log when the driver exits, is not ready within two minutes, or a
   *     claim comes back with an error
   */
  public static Figures run(List<String> jvm, List<String> launch, Path dir, int claims)
      throws Exception {
    MockApiServer.quietRequests();
    Path root = FakeSysfs.write(dir.resolve("root"), RealMachines.xe8640());
    Path log = dir.resolve("driver.log");
    MockApiServer api = MockApiServer.crud();
    Vertx vertx = Vertx.vertx();
    Process driver = null;
    try {
      KubernetesClient client = api.client();
      client
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
          .create();
      int ops = freePort();
      long started = System.nanoTime();
      driver = start(jvm, launch, dir, root, ops, api, log);
      GrpcClient grpc = KubeletGrpcClient.create(vertx);
      Path dra = register(grpc, driver, dir.resolve("registry/" + DRIVER + "-reg.sock"), log);
      awaitReady(driver, ops, log);
      long readyMs = (System.nanoTime() - started) / 1_000_000;
      List<ResourceSlice> slices =
          client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
      List<Device> devices =
          slices.stream().flatMap(s -> s.getSpec().getDevices().stream()).toList();
      if (devices.isEmpty()) {
        throw new IllegalStateException("ready without a published device; see " + log);
      }
      watchHealth(grpc, dra, devices.size(), log);
      String pool = slices.get(0).getSpec().getPool().getName();
      long t0 = System.nanoTime();
      int prepared =
          prepareAndUnprepare(
              client, DRAPluginGrpcClient.create(grpc, at(dra)), pool, devices, claims, log);
      long claimsMs = (System.nanoTime() - t0) / 1_000_000;
      ProcessFootprint footprint = ProcessFootprint.of(driver.pid());
      return new Figures(
          readyMs,
          slices.size(),
          devices.size(),
          prepared,
          claimsMs,
          footprint.rssKib() / 1024.0,
          footprint.peakKib() / 1024.0);
    } finally {
      if (driver != null) {
        driver.destroy();
        driver.waitFor();
      }
      vertx.close().await();
      api.close();
    }
  }

  private static Process start(
      List<String> jvm,
      List<String> launch,
      Path dir,
      Path root,
      int ops,
      MockApiServer api,
      Path log)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvm);
    cmd.addAll(launch);
    cmd.addAll(
        List.of(
            "--hwloc-xml=" + Topologies.path("dell-poweredge-xe8640-h100x4.xml"),
            "--sysfs-root=" + root,
            "--plugin-registry-dir=" + dir.resolve("registry"),
            "--plugin-dir=" + dir.resolve("plugin"),
            "--cdi-dir=" + dir.resolve("cdi"),
            "--device-info-dir=" + dir.resolve("devinfo"),
            "--ops-port=" + ops));
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(new File(log.toString()));
    Map<String, String> env = pb.environment();
    env.put("NODE_NAME", NODE);
    api.pointAt(env);
    env.remove("JAVA_TOOL_OPTIONS");
    return pb.start();
  }

  /**
   * The kubelet's plugin watcher: the registration socket appears, GetInfo names the DRA socket,
   * and the kubelet reports the driver registered. Returns the DRA socket.
   */
  private static Path register(GrpcClient grpc, Process driver, Path socket, Path log) {
    await("the registration socket " + socket + "; see " + log)
        .atMost(READY_WITHIN)
        .pollInterval(Duration.ofMillis(20))
        .failFast("the driver exited; see " + log, () -> !driver.isAlive())
        .until(() -> Files.exists(socket));
    RegistrationGrpcClient kubelet = RegistrationGrpcClient.create(grpc, at(socket));
    PluginInfo info = kubelet.getInfo(InfoRequest.getDefaultInstance()).await();
    if (!info.getType().equals("DRAPlugin") || !info.getName().equals(DRIVER)) {
      throw new IllegalStateException("GetInfo answered " + info + "; see " + log);
    }
    kubelet
        .notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build())
        .await();
    return Path.of(info.getEndpoint());
  }

  private static void awaitReady(Process driver, int ops, Path log) {
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest readyz =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ops + "/readyz")).build();
    await("/readyz on port " + ops + "; see " + log)
        .atMost(READY_WITHIN)
        .pollInterval(Duration.ofMillis(20))
        .ignoreExceptions()
        .failFast("the driver exited; see " + log, () -> !driver.isAlive())
        .until(() -> http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
  }

  /** The kubelet's health stream: its first report names every device. */
  private static void watchHealth(GrpcClient grpc, Path dra, int devices, Path log)
      throws InterruptedException {
    BlockingQueue<NodeWatchResourcesResponse> heard = new LinkedBlockingQueue<>();
    DRAResourceHealthGrpcClient.create(grpc, at(dra))
        .nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance())
        .onSuccess(stream -> stream.handler(heard::add));
    NodeWatchResourcesResponse first = heard.poll(READY_WITHIN.toSeconds(), TimeUnit.SECONDS);
    if (first == null || first.getDevicesCount() != devices) {
      throw new IllegalStateException(
          "the health stream reported " + first + " for " + devices + " devices; see " + log);
    }
  }

  /**
   * {@code claims} claims in the mock, claim i allocated device i (and i+1 when i is odd), prepared
   * and unprepared as a pod's claims are: one or two per call, in turn.
   */
  private static int prepareAndUnprepare(
      KubernetesClient client,
      DRAPluginGrpcClient kubelet,
      String pool,
      List<Device> devices,
      int claims,
      Path log) {
    List<Claim> all = new ArrayList<>();
    for (int i = 0; i < claims; i++) {
      List<String> granted = new ArrayList<>();
      granted.add(devices.get(i % devices.size()).getName());
      if (i % 2 == 1 && devices.size() > 1) {
        granted.add(devices.get((i + 1) % devices.size()).getName());
      }
      ResourceClaim c =
          AllocatedClaims.create(client, NAMESPACE, "claim-" + i, "hcas", pool, granted);
      all.add(
          Claim.newBuilder()
              .setNamespace(NAMESPACE)
              .setName(c.getMetadata().getName())
              .setUid(c.getMetadata().getUid())
              .build());
    }
    int done = 0;
    for (int i = 0; i < all.size(); ) {
      List<Claim> call = all.subList(i, Math.min(all.size(), i + 1 + (i / 3) % 2));
      NodePrepareResourcesResponse prepared =
          kubelet
              .nodePrepareResources(
                  NodePrepareResourcesRequest.newBuilder().addAllClaims(call).build())
              .await();
      NodeUnprepareResourcesResponse unprepared =
          kubelet
              .nodeUnprepareResources(
                  NodeUnprepareResourcesRequest.newBuilder().addAllClaims(call).build())
              .await();
      for (Claim c : call) {
        String error = prepared.getClaimsOrThrow(c.getUid()).getError();
        error += unprepared.getClaimsOrThrow(c.getUid()).getError();
        if (!error.isEmpty()) {
          throw new IllegalStateException(
              "claim " + c.getName() + " came back with an error: " + error + "; see " + log);
        }
      }
      done += call.size();
      i += call.size();
    }
    return done;
  }

  private static SocketAddress at(Path socket) {
    return SocketAddress.domainSocketAddress(socket.toString());
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
