package dev.tandem.deviceplugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.plan.Plan;
import dev.tandem.deviceplugin.config.GpuConfig;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import dev.tandem.deviceplugin.standin.DeviceManagerStandIn;
import dev.tandem.deviceplugin.standin.KubeletStandIn;
import dev.tandem.deviceplugin.standin.StandInWiring;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.MovableClock;
import dev.tandem.fixtures.Topologies;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.CDIDevice;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@DisplayName(
    "joint mode: rdma/hca and nvidia.com/gpu from one process, through the kubelet stand-in on real sockets")
@ExtendWith(VertxExtension.class)
class JointModeIT {

  static final String GPU = "nvidia.com/gpu";
  static final String HCA = "rdma/hca";
  static final ResourceConfig JOINT =
      ResourceConfig.DEFAULT.withGpu(new GpuConfig(true, false, GPU, Duration.ofSeconds(30)));

  @TempDir Path dir;
  @TempDir Path sysfs;
  Vertx vertx;
  final List<DevicePlugin> plugins = new ArrayList<>();
  final AtomicReference<List<PlannedPod>> pending = new AtomicReference<>(List.of());
  final MovableClock clock = new MovableClock(Instant.parse("2026-11-22T04:00:00Z"));
  static final Machine XE8640 = xe8640();
  final Machine machine = XE8640;
  final LocalityIndex index = LocalityIndex.of(machine);

  static Machine xe8640() {
    return TopologySources.discoverOnce(
            DiscoveryOptions.hwlocXml("n1", Topologies.path("dell-poweredge-xe8640-h100x4.xml")))
        .machine();
  }

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  @AfterEach
  void tearDown() {
    plugins.forEach(p -> p.stop().await());
  }

  /**
   * A node: the kubelet stand-in, the plugin (joint or hint mode) and the device manager stand-in.
   */
  record Node(KubeletStandIn kubelet, DevicePlugin plugin, DeviceManagerStandIn manager) {}

  Node node(Path where, ResourceConfig config, boolean kube, long seed) throws Exception {
    Files.createDirectories(where);
    FakeSysfs.write(sysfs, machine);
    KubeletStandIn kubelet = new KubeletStandIn(vertx, where);
    kubelet.start().await();
    DeviceManagerStandIn manager = new DeviceManagerStandIn(kubelet, seed);
    PendingPlans plans = kube ? n -> Future.succeededFuture(pending.get()) : null;
    DevicePlugin plugin =
        new DevicePlugin(
            vertx,
            StandInWiring.of(machine, config, where, sysfs, kubelet)
                .plans(plans)
                .podResources(manager.podResources())
                .gpuSocket(where.resolve("tandem-gpu.sock"))
                .clock(clock)
                .build());
    plugins.add(plugin);
    plugin.start().await();
    manager.plugin(HCA, must(kubelet.nextList(HCA, 5000)));
    if (config.gpu().enabled()) {
      manager.plugin(GPU, must(kubelet.nextList(GPU, 5000)));
    } else {
      manager.stub(GPU, machine.gpus().stream().map(Device::id).toList());
    }
    return new Node(kubelet, plugin, manager);
  }

  static ListAndWatchResponse must(ListAndWatchResponse l) {
    assertNotNull(l, "no ListAndWatch message within 5 s");
    return l;
  }

  /** The plan the extender would write for (size, size) on an empty node, switch/preferred. */
  Plan plan(int size, int i) {
    Allocation a =
        (Allocation)
            new Allocator(index)
                .allocate(
                    new AllocationRequest(
                        size, size, new AlignmentPolicy(Alignment.SWITCH, AlignmentMode.PREFERRED)),
                    Availability.allFree(index, 1));
    return new Plan(
        "n1",
        a.gpuIds(),
        a.hcaIds(),
        a.worst().name(),
        "switch/preferred",
        Instant.parse("2026-11-22T03:00:00Z").plusSeconds(i));
  }

  boolean alignable(int size) {
    return new Allocator(index)
            .allocate(
                new AllocationRequest(size, size, AlignmentPolicy.DEFAULT),
                Availability.allFree(index, 1))
        instanceof Allocation;
  }

  /** Every GPU has an HCA within PXB and every HCA a GPU (one switch). */
  boolean aligned(List<String> gpus, List<String> hcas) {
    return gpus.stream().allMatch(g -> hcas.stream().anyMatch(h -> near(g, h)))
        && hcas.stream().allMatch(h -> gpus.stream().anyMatch(g -> near(g, h)));
  }

  private boolean near(String gpu, String hca) {
    return index.locality(gpu, hca).compareTo(Locality.PXB) <= 0;
  }

  @Test
  @DisplayName(
      "registers rdma/hca and nvidia.com/gpu on two sockets; GPU list: one device per GPU with NUMA; both re-register after a kubelet restart")
  void registersBoth() throws Exception {
    Node n = node(dir.resolve("k"), JOINT, false, 1);
    Map<String, String> endpoints = new HashMap<>();
    n.kubelet().registrations().forEach(r -> endpoints.put(r.getResourceName(), r.getEndpoint()));
    assertTrue(endpoints.get(HCA).matches("tandem-rdma-[0-9a-f]{12}\\.sock"), endpoints.toString());
    assertTrue(endpoints.get(GPU).matches("tandem-gpu-[0-9a-f]{12}\\.sock"), endpoints.toString());
    assertTrue(
        n.kubelet().options().stream().allMatch(o -> o.getGetPreferredAllocationAvailable()));
    ListAndWatchResponse gpus = n.plugin().gpu().table().list();
    assertEquals(
        machine.gpus().stream().map(Device::id).toList(),
        gpus.getDevicesList().stream().map(d -> d.getID()).toList());
    assertTrue(
        gpus.getDevicesList().stream()
            .allMatch(
                d -> d.getHealth().equals("Healthy") && d.getTopology().getNodesCount() == 1));
    assertTrue(n.plugin().nvmlNote().contains("nvidia-ml"), n.plugin().nvmlNote());
    n.kubelet().restart().await();
    assertNotNull(
        n.kubelet().nextList(HCA, 5000), "rdma/hca not re-registered after the kubelet restart");
    assertNotNull(
        n.kubelet().nextList(GPU, 5000),
        "nvidia.com/gpu not re-registered after the kubelet restart");
    for (String resource : List.of(HCA, GPU)) {
      assertTrue(
          n.kubelet().registrations().stream()
                  .filter(r -> r.getResourceName().equals(resource))
                  .count()
              >= 2,
          resource + " registered again");
    }
  }

  @Test
  @DisplayName(
      "GPU first and HCA first, each in both orders: the container gets exactly the planned set (a plan that is not the allocator's first pick)")
  void bothOrdersFollowThePlan() throws Exception {
    Node n = node(dir.resolve("k"), JOINT, true, 2);
    // the allocator's plan for 1+1 is cuda0/mlx5_0; plan the pair on another switch instead
    List<Device> paired =
        machine.gpus().stream()
            .filter(g -> machine.hcas().stream().anyMatch(h -> near(g.id(), h.id())))
            .toList();
    Device gpu = paired.get(paired.size() - 1);
    String hca =
        machine.hcas().stream().filter(h -> near(gpu.id(), h.id())).findFirst().orElseThrow().id();
    assertTrue(
        !plan(1, 0).gpus().contains(gpu.id()),
        "the test plan must differ from the allocator's pick");
    for (List<String> order : List.of(List.of(GPU, HCA), List.of(HCA, GPU))) {
      String name = "p-" + order.get(0).charAt(0);
      Plan p =
          new Plan(
              "n1",
              List.of(gpu.id()),
              List.of(hca),
              "PIX",
              "switch/required",
              Instant.parse("2026-11-22T03:00:00Z"));
      pending.set(List.of(new PlannedPod("team", name, p, Map.of("main", 1), Map.of("main", 1))));
      Map<String, List<String>> got =
          n.manager().admit("team", name, "main", Map.of(GPU, 1, HCA, 1), order);
      assertEquals(List.of(gpu.id()), got.get(GPU), "order " + order);
      assertEquals(List.of(hca), got.get(HCA), "order " + order);
      n.manager().release("team", name);
    }
    assertEquals(
        0, n.plugin().joint().reservations(), "both Allocate calls consume the reservation");
  }

  @Test
  @DisplayName(
      "no plan: the first call decides the allocator's best joint set and the second follows it, in either order")
  void noPlanAllocatorsBest() throws Exception {
    Node n = node(dir.resolve("k"), JOINT, true, 3);
    Allocation best =
        (Allocation)
            new Allocator(index)
                .allocate(
                    new AllocationRequest(
                        2, 2, new AlignmentPolicy(Alignment.NONE, AlignmentMode.PREFERRED)),
                    Availability.allFree(index, 1));
    for (List<String> order : List.of(List.of(GPU, HCA), List.of(HCA, GPU))) {
      Map<String, List<String>> got =
          n.manager().admit("team", "q", "main", Map.of(GPU, 2, HCA, 2), order);
      assertEquals(Set.copyOf(best.gpuIds()), Set.copyOf(got.get(GPU)), "order " + order);
      assertEquals(Set.copyOf(best.hcaIds()), Set.copyOf(got.get(HCA)), "order " + order);
      n.manager().release("team", "q");
    }
  }

  @Test
  @DisplayName(
      "a reservation is consumed by the second Allocate, and expires after its TTL (the late second call then decides afresh)")
  void reservationConsumedAndExpired() throws Exception {
    Node n = node(dir.resolve("k"), JOINT, false, 4);
    var joint = n.plugin().joint();
    List<String> gpus = machine.gpus().stream().map(Device::id).toList();
    n.kubelet().preferred(GPU, request(gpus, 1));
    assertEquals(1, joint.reservations());
    n.kubelet().allocate(GPU, allocate(gpus.get(0)));
    assertEquals(1, joint.reservations(), "still waiting for the HCA side");
    List<String> hcas =
        n.kubelet()
            .preferred(HCA, request(List.of("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"), 1))
            .getContainerResponses(0)
            .getDeviceIDsList();
    assertTrue(
        aligned(List.of(gpus.get(0)), hcas),
        "second call follows the GPU the kubelet allocated: " + hcas);
    n.kubelet().allocate(HCA, allocate(hcas.get(0)));
    assertEquals(0, joint.reservations());

    n.kubelet().preferred(GPU, request(gpus, 1));
    assertEquals(1, joint.reservations());
    clock.advance(Duration.ofSeconds(31));
    assertEquals(0, joint.reservations(), "expired after 30 s");
  }

  @Test
  @DisplayName(
      "GPU Allocate: NVIDIA_VISIBLE_DEVICES with the ids, CDI names when configured, unknown ids named in the error")
  void gpuAllocate() throws Exception {
    Node n =
        node(
            dir.resolve("k"),
            JOINT.withGpu(new GpuConfig(true, true, GPU, Duration.ofSeconds(30))),
            false,
            5);
    List<String> gpus = machine.gpus().stream().map(Device::id).toList();
    ContainerAllocateResponse r =
        n.kubelet().allocate(GPU, allocate(gpus.get(1), gpus.get(3))).getContainerResponses(0);
    assertEquals(Map.of("NVIDIA_VISIBLE_DEVICES", gpus.get(1) + "," + gpus.get(3)), r.getEnvsMap());
    assertEquals(
        List.of("nvidia.com/gpu=" + gpus.get(1), "nvidia.com/gpu=" + gpus.get(3)),
        r.getCdiDevicesList().stream().map(CDIDevice::getName).toList());
    String status = n.kubelet().allocateStatus(GPU, allocate("GPU-nope"));
    assertTrue(status.startsWith("INVALID_ARGUMENT") && status.contains("GPU-nope"), status);
  }

  /** Per size: admitted, aligned, when an aligned set was free, exactly the planned set. */
  static final class Tally {
    final Map<Integer, int[]> bySize = new TreeMap<>();

    void add(int size, boolean alignable, boolean aligned, boolean planned) {
      int[] t = bySize.computeIfAbsent(size, k -> new int[4]);
      t[0]++;
      t[1] += aligned ? 1 : 0;
      t[2] += alignable ? 1 : 0;
      t[3] += planned ? 1 : 0;
    }

    String table(String label) {
      StringBuilder b = new StringBuilder();
      bySize.forEach(
          (s, t) ->
              b.append(
                  String.format(
                      "  %-10s %d GPU + %d HCA: %3d/%3d aligned under a switch (%3.0f%%), "
                          + "aligned set free %3d times, %3d got exactly the planned devices%n",
                      label, s, s, t[1], t[0], 100.0 * t[1] / t[0], t[2], t[3])));
      return b.toString();
    }
  }

  Tally admitMany(Node n, String label, int perSize) {
    Tally tally = new Tally();
    int[] sizes = {1, 2, 4};
    for (int i = 0; i < perSize * sizes.length; i++) {
      int s = sizes[i % sizes.length];
      String name = label + "-" + i;
      Plan p = plan(s, i);
      pending.set(List.of(new PlannedPod("team", name, p, Map.of("main", s), Map.of("main", s))));
      Map<String, List<String>> got =
          n.manager().admit("team", name, "main", Map.of(GPU, s, HCA, s));
      boolean planned =
          Set.copyOf(got.get(GPU)).equals(Set.copyOf(p.gpus()))
              && Set.copyOf(got.get(HCA)).equals(Set.copyOf(p.hcas()));
      tally.add(s, alignable(s), aligned(got.get(GPU), got.get(HCA)), planned);
      n.manager().release("team", name);
      pending.set(List.of());
    }
    return tally;
  }

  @Test
  @DisplayName(
      "same admissions, random resource order each time: joint mode aligned 100% of the times an aligned set was free; hint mode measured beside it")
  void jointVersusHint() throws Exception {
    int perSize = 60;
    Tally joint = admitMany(node(dir.resolve("joint"), JOINT, true, 42), "joint", perSize);
    Tally hint =
        admitMany(node(dir.resolve("hint"), ResourceConfig.DEFAULT, true, 42), "hint", perSize);
    String report =
        "XE8640 fixture, "
            + perSize
            + " pods per size, one at a time, random resource order (seed 42):\n"
            + joint.table("joint")
            + hint.table("hint");
    System.out.println(report);
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target/joint-mode-figures.txt"), report);
    joint.bySize.forEach(
        (s, t) -> {
          assertEquals(
              t[2],
              t[1],
              "joint mode, size " + s + ": aligned every time an aligned set was free\n" + report);
          assertEquals(
              t[0],
              t[3],
              "joint mode, size " + s + ": the planned set every time (it was free)\n" + report);
        });
    int jointAligned = joint.bySize.values().stream().mapToInt(t -> t[1]).sum();
    int hintAligned = hint.bySize.values().stream().mapToInt(t -> t[1]).sum();
    assertTrue(jointAligned >= hintAligned, report);
  }

  /**
   * A busy node: each pod is planned on what is free (as the extender does, its allocations
   * assumed), admitted while the previous pod still runs, then the previous pod ends. Sizes 1 and
   * 2.
   */
  Tally admitBusy(Node n, String label, int count) {
    Tally tally = new Tally();
    String previous = null;
    for (int i = 0; i < count; i++) {
      int s = 1 + i % 2;
      String name = label + "-busy-" + i;
      Availability free =
          Availability.allFree(index, 1)
              .without(n.manager().inUse(GPU))
              .without(n.manager().inUse(HCA));
      var planned =
          new Allocator(index)
              .allocate(
                  new AllocationRequest(
                      s, s, new AlignmentPolicy(Alignment.SWITCH, AlignmentMode.PREFERRED)),
                  free);
      boolean alignable =
          new Allocator(index).allocate(new AllocationRequest(s, s, AlignmentPolicy.DEFAULT), free)
              instanceof Allocation;
      Allocation a = (Allocation) planned;
      Plan p =
          new Plan(
              "n1",
              a.gpuIds(),
              a.hcaIds(),
              a.worst().name(),
              "switch/preferred",
              Instant.parse("2026-11-22T03:00:00Z").plusSeconds(i));
      pending.set(List.of(new PlannedPod("team", name, p, Map.of("main", s), Map.of("main", s))));
      Map<String, List<String>> got =
          n.manager().admit("team", name, "main", Map.of(GPU, s, HCA, s));
      boolean followed =
          Set.copyOf(got.get(GPU)).equals(Set.copyOf(p.gpus()))
              && Set.copyOf(got.get(HCA)).equals(Set.copyOf(p.hcas()));
      tally.add(s, alignable, aligned(got.get(GPU), got.get(HCA)), followed);
      pending.set(List.of());
      if (previous != null) {
        n.manager().release("team", previous);
      }
      previous = name;
    }
    return tally;
  }

  @Test
  @DisplayName(
      "busy node (the previous pod still holds devices), random order: joint mode aligned every time an aligned set was free")
  void busyNode() throws Exception {
    Tally joint = admitBusy(node(dir.resolve("joint"), JOINT, true, 11), "joint", 80);
    Tally hint = admitBusy(node(dir.resolve("hint"), ResourceConfig.DEFAULT, true, 11), "hint", 80);
    String report =
        "XE8640 fixture, busy node, 80 pods, random resource order (seed 11):\n"
            + joint.table("joint")
            + hint.table("hint");
    System.out.println(report);
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target/joint-mode-busy-figures.txt"), report);
    joint.bySize.forEach(
        (s, t) -> {
          assertEquals(
              t[2],
              t[1],
              "joint mode, size " + s + ": aligned every time an aligned set was free\n" + report);
          assertEquals(
              t[0], t[3], "joint mode, size " + s + ": the planned set every time\n" + report);
        });
  }

  @Test
  @DisplayName(
      "without the API server (--no-kube): random order, sizes 1 and 2 end aligned every time (matched by size)")
  void noKubeRandomOrder() throws Exception {
    Node n = node(dir.resolve("k"), JOINT, false, 7);
    for (int i = 0; i < 40; i++) {
      int s = 1 + i % 2;
      Map<String, List<String>> got =
          n.manager().admit("team", "r" + i, "main", Map.of(GPU, s, HCA, s));
      assertTrue(aligned(got.get(GPU), got.get(HCA)), "admission " + i + ": " + got);
      n.manager().release("team", "r" + i);
    }
    assertEquals(0, n.plugin().joint().reservations());
  }

  static PreferredAllocationRequest request(List<String> available, int size) {
    return PreferredAllocationRequest.newBuilder()
        .addContainerRequests(
            ContainerPreferredAllocationRequest.newBuilder()
                .addAllAvailableDeviceIDs(available)
                .setAllocationSize(size))
        .build();
  }

  static AllocateRequest allocate(String... ids) {
    return AllocateRequest.newBuilder()
        .addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(List.of(ids)))
        .build();
  }
}
