package dev.tandem.dra.prepare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.dra.cdi.CdiDirectory;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName(
    "Prepare and Unprepare of claims: CDI specs, checkpoint, idempotence, errors per claim")
class PreparerTest {

  static final String DRIVER = "tandem.dev";
  static final String UID = "3f6a2c1e-0000-4000-8000-000000000001";
  static final ClaimRef REF = new ClaimRef("team", UID, "train-gpus");

  @TempDir Path dir;

  final Map<String, ClaimAllocation> claims = new HashMap<>();
  final AtomicInteger reads = new AtomicInteger();
  Machine machine = TestMachines.twoSwitchesAndLoneHca("n1");

  ClaimSource source() {
    return (ns, name) -> {
      reads.incrementAndGet();
      return Optional.ofNullable(claims.get(ns + "/" + name));
    };
  }

  Preparer preparer() {
    return preparer(dir.resolve("cdi"), dir.resolve("checkpoint.json"));
  }

  Preparer preparer(Path cdi, Path checkpoint) {
    return new Preparer(
        DRIVER,
        () -> PoolBuilder.build(machine, PoolSpec.joint()),
        source(),
        new CdiDirectory(cdi),
        dir.resolve("devinfo"),
        Checkpoint.open(checkpoint),
        "rdma/hca");
  }

  static AllocatedDevice ours(String request, String device) {
    return new AllocatedDevice(request, DRIVER, "n1", device);
  }

  void allocate(AllocatedDevice... devices) {
    claims.put("team/train-gpus", new ClaimAllocation(UID, true, List.of(devices)));
  }

  Path spec() {
    return dir.resolve("cdi").resolve("tandem.dev-hca_" + UID + ".json");
  }

  @Test
  @DisplayName(
      "a GPU and two HCAs: NVIDIA's CDI name for the GPU; a spec with uverbs, rdma_cm and the env")
  void prepares() throws IOException {
    Files.createDirectories(dir.resolve("cdi"));
    allocate(
        ours("gpus", "gpu-a0"),
        ours("hcas", "mlx5-0"),
        ours("hcas", "mlx5-1"),
        new AllocatedDevice("other", "gpu.nvidia.com", "n1", "gpu-0"));
    ClaimOutcome o = preparer().prepare(REF);
    assertEquals("", o.error());
    assertEquals(
        List.of(
            new PreparedDevice(List.of("gpus"), "n1", "gpu-a0", List.of("nvidia.com/gpu=GPU-a0")),
            new PreparedDevice(
                List.of("hcas"), "n1", "mlx5-0", List.of("tandem.dev/hca=" + UID + "-mlx5-0")),
            new PreparedDevice(
                List.of("hcas"), "n1", "mlx5-1", List.of("tandem.dev/hca=" + UID + "-mlx5-1"))),
        o.devices());

    JsonNode spec = new ObjectMapper().readTree(spec().toFile());
    assertEquals("0.5.0", spec.get("cdiVersion").asText());
    assertEquals("tandem.dev/hca", spec.get("kind").asText());
    assertEquals(UID + "-mlx5-0", spec.get("devices").get(0).get("name").asText());
    JsonNode node = spec.get("devices").get(0).get("containerEdits").get("deviceNodes").get(0);
    assertEquals("/dev/infiniband/uverbs0", node.get("path").asText());
    assertEquals("/dev/infiniband/uverbs0", node.get("hostPath").asText());
    assertEquals("rw", node.get("permissions").asText());
    assertEquals(
        "/dev/infiniband/uverbs1",
        spec.get("devices")
            .get(1)
            .get("containerEdits")
            .get("deviceNodes")
            .get(0)
            .get("path")
            .asText());
    JsonNode common = spec.get("containerEdits");
    assertEquals("/dev/infiniband/rdma_cm", common.get("deviceNodes").get(0).get("path").asText());
    List<String> env = new ArrayList<>();
    common.get("env").forEach(e -> env.add(e.asText()));
    assertEquals(
        List.of(
            "NCCL_IB_HCA==mlx5_0,mlx5_1",
            "UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1",
            "TANDEM_RDMA_DEVICES=mlx5_0,mlx5_1",
            "TANDEM_RDMA_DEVICE_IDS=mlx5-0,mlx5-1",
            "PCIDEVICE_RDMA_HCA=0000:15:00.0,0000:21:00.0"),
        env);
    assertTrue(Checkpoint.open(dir.resolve("checkpoint.json")).get(UID).isPresent());
    try (Stream<Path> files = Files.list(dir.resolve("cdi"))) {
      assertEquals(List.of(spec()), files.toList(), "no temporary file left behind");
    }
  }

  @Test
  @DisplayName("Prepare twice and after a restart: the same answer, from the checkpoint")
  void idempotentAcrossRestarts() {
    allocate(ours("hcas", "mlx5-2"));
    ClaimOutcome first = preparer().prepare(REF);
    Preparer same = preparer();
    assertEquals(first, same.prepare(REF));
    assertEquals(first, same.prepare(REF));
    assertEquals(1, reads.get(), "the API server is asked once");
    // a spec lost (tmpfs after a reboot) is written again
    assertTrue(spec().toFile().delete());
    assertEquals(first, preparer().prepare(REF));
    assertTrue(Files.exists(spec()));
  }

  @Test
  @DisplayName("Unprepare after a restart removes the spec and forgets the claim; twice is fine")
  void unprepareAfterRestart() {
    allocate(ours("hcas", "mlx5-2"));
    preparer().prepare(REF);
    Preparer restarted = preparer();
    assertEquals("", restarted.unprepare(REF));
    assertFalse(Files.exists(spec()));
    assertTrue(Checkpoint.open(dir.resolve("checkpoint.json")).claims().isEmpty());
    assertEquals("", restarted.unprepare(REF));
    assertEquals("", preparer().unprepare(new ClaimRef("x", "never-prepared", "y")));
  }

  @Test
  @DisplayName("a UID that is not one (a path) is refused before it names any file")
  void uidNotAUid() throws IOException {
    Files.createDirectories(dir.resolve("cdi").resolve("tandem.dev-hca_"));
    Path outside = Files.writeString(dir.resolve("victim.json"), "{}");
    ClaimRef hostile = new ClaimRef("team", "/../../victim", "train-gpus");
    String error = preparer().prepare(hostile).error();
    assertTrue(
        error.contains("the kubelet sent UID '/../../victim', which is not a Kubernetes UID"),
        error);
    assertTrue(preparer().unprepare(hostile).contains("not a Kubernetes UID"));
    assertTrue(Files.exists(outside));
    assertFalse(Files.exists(dir.resolve("checkpoint.json")));
  }

  @Test
  @DisplayName("a claim of another node, an unknown device, a changed UID: errors naming the fix")
  void refusals() {
    claims.put(
        "team/train-gpus",
        new ClaimAllocation(UID, true, List.of(new AllocatedDevice("r", DRIVER, "n2", "mlx5-0"))));
    String wrongNode = preparer().prepare(REF).error();
    assertEquals(
        "claim team/train-gpus was given device mlx5-0 of pool n2, but this driver serves pool n1"
            + " of node n1: the claim was allocated for another node; delete the pod so that it is"
            + " scheduled again",
        wrongNode);

    allocate(ours("hcas", "mlx5-9"));
    String unknown = preparer().prepare(REF).error();
    assertTrue(
        unknown.startsWith(
            "claim team/train-gpus was given device mlx5-9, which this driver does not publish on node n1"),
        unknown);

    claims.put("team/train-gpus", new ClaimAllocation("other-uid", true, List.of()));
    assertTrue(preparer().prepare(REF).error().contains("has UID other-uid, not " + UID));
    claims.put("team/train-gpus", new ClaimAllocation(UID, false, List.of()));
    assertTrue(
        preparer()
            .prepare(REF)
            .error()
            .endsWith("is not allocated: the scheduler" + " allocates it before the pod starts"));
    claims.clear();
    assertTrue(preparer().prepare(REF).error().contains("is not in the API server"));
    ClaimSource broken =
        (ns, name) -> {
          throw new IllegalStateException("connection refused");
        };
    Preparer offline =
        new Preparer(
            DRIVER,
            () -> PoolBuilder.build(machine, PoolSpec.joint()),
            broken,
            new CdiDirectory(dir.resolve("cdi")),
            dir.resolve("devinfo"),
            Checkpoint.open(dir.resolve("checkpoint.json")),
            "rdma/hca");
    assertEquals(
        "claim team/train-gpus cannot be read from the API server: connection refused",
        offline.prepare(REF).error());
    assertFalse(Files.exists(spec()));
    assertTrue(Checkpoint.open(dir.resolve("checkpoint.json")).claims().isEmpty());
  }

  @Test
  @DisplayName("an HCA with no uverbs device: the claim's error names the HCA; nothing written")
  void noUverbs() {
    machine = TestMachines.twoSockets("n1");
    allocate(ours("hcas", "mlx5-0"));
    String error = preparer().prepare(REF).error();
    assertTrue(
        error.startsWith(
            "claim team/train-gpus: no uverbs character device known for HCA mlx5_0 (mlx5-0) on"
                + " node n1"),
        error);
    assertFalse(Files.exists(spec()));
  }

  @Test
  @DisplayName("a CDI directory that cannot be written: a clear error, no half-written spec")
  void unwritableCdiDirectory() throws IOException {
    Path notADirectory = Files.writeString(dir.resolve("cdi-file"), "");
    allocate(ours("hcas", "mlx5-0"));
    String error = preparer(notADirectory, dir.resolve("checkpoint.json")).prepare(REF).error();
    assertTrue(error.startsWith("claim team/train-gpus: the CDI spec "), error);
    assertTrue(error.contains("cannot be written"), error);
    assertTrue(error.contains("Mount the host's " + notADirectory + " read-write"), error);
    assertTrue(Checkpoint.open(dir.resolve("checkpoint.json")).claims().isEmpty());
  }

  @Test
  @DisplayName("a checkpoint that cannot be written: the spec just written is removed again")
  void unwritableCheckpoint() throws IOException {
    Path state = Files.createDirectories(dir.resolve("state"));
    Preparer preparer = preparer(dir.resolve("cdi"), state.resolve("checkpoint.json"));
    Files.delete(state);
    Files.writeString(state, "");
    allocate(ours("hcas", "mlx5-0"));
    String error = preparer.prepare(REF).error();
    assertTrue(error.startsWith("claim team/train-gpus: the checkpoint "), error);
    assertTrue(error.contains("state directory must be writable"), error);
    assertFalse(Files.exists(spec()));
  }

  @Test
  @DisplayName(
      "hostile input, each refused naming the claim before anything is written: names that are"
          + " not Kubernetes names, a device not published, a result without request, more results"
          + " than the API allows; a long or unprintable name shown short and escaped")
  void hostileClaims() {
    for (ClaimRef bad :
        List.of(
            new ClaimRef("a/b", UID, "train-gpus"),
            new ClaimRef("team", UID, ".."),
            new ClaimRef("Team", UID, "train-gpus"),
            new ClaimRef("team", UID, "x".repeat(254)))) {
      String error = preparer().prepare(bad).error();
      assertTrue(error.contains("is not a DNS label or a name that is not a DNS"), error);
    }
    assertEquals(0, reads.get(), "the API server is not asked about such a name");

    allocate(ours("gpus", "gpu-a0"));
    Preparer hcaOnly =
        new Preparer(
            DRIVER,
            () -> PoolBuilder.build(machine, new PoolSpec(DRIVER, false)),
            source(),
            new CdiDirectory(dir.resolve("cdi")),
            dir.resolve("devinfo"),
            Checkpoint.open(dir.resolve("checkpoint.json")),
            "rdma/hca");
    assertTrue(
        hcaOnly
            .prepare(REF)
            .error()
            .startsWith(
                "claim team/train-gpus was given device gpu-a0, which this driver does not"
                    + " publish on node n1"),
        "HCA-only mode publishes no GPU, so none is prepared");

    allocate(ours("", "mlx5-0"));
    assertTrue(preparer().prepare(REF).error().contains("for no request"));

    allocate(ours("hcas", "mlx5-0" + "0".repeat(100_000) + "\u0000"));
    String shown = preparer().prepare(REF).error();
    assertTrue(shown.contains("… (100007 characters)"), shown);
    assertTrue(shown.length() < 1_000, shown);

    allocate(ours("hcas", "mlx5-\ud800\u0007"));
    assertTrue(preparer().prepare(REF).error().contains("mlx5-\\ud800\\u0007"));

    List<AllocatedDevice> many = new ArrayList<>();
    for (int i = 0; i < ClaimAllocation.MAX_RESULTS + 1; i++) {
      many.add(ours("hcas", "mlx5-0"));
    }
    allocate(many.toArray(AllocatedDevice[]::new));
    assertTrue(preparer().prepare(REF).error().contains("has 33 allocation results, more than"));
    assertFalse(Files.exists(spec()));
    assertTrue(Checkpoint.open(dir.resolve("checkpoint.json")).claims().isEmpty());
  }

  @Test
  @DisplayName(
      "prepared already, but its spec replaced by a link or another program's file: written"
          + " again; a directory in its place, and one that cannot be removed, an error naming it")
  void replacedSpecWrittenAgain() throws IOException {
    allocate(ours("hcas", "mlx5-0"));
    Preparer preparer = preparer();
    assertEquals("", preparer.prepare(REF).error());
    Path elsewhere = Files.writeString(dir.resolve("elsewhere.json"), "{}");
    for (Runnable replace :
        List.<Runnable>of(
            () ->
                replace(
                    spec(),
                    () ->
                        Files.writeString(
                            spec(), "{\"cdiVersion\":\"0.5.0\",\"kind\":\"other.example/x\"}")),
            () -> replace(spec(), () -> Files.createSymbolicLink(spec(), elsewhere)))) {
      replace.run();
      assertEquals("", preparer.prepare(REF).error());
      assertTrue(Files.isRegularFile(spec(), LinkOption.NOFOLLOW_LINKS), "written again");
      assertTrue(Files.readString(spec()).contains("\"kind\" : \"tandem.dev/hca\""));
    }
    assertEquals("{}", Files.readString(elsewhere), "nothing written through the link");
    replace(spec(), () -> Files.createDirectory(spec()));
    String blocked = preparer.prepare(REF).error();
    assertTrue(blocked.contains("cannot be written"), blocked);

    Files.deleteIfExists(spec()); // the failed Prepare removed the empty directory again
    Files.writeString(Files.createDirectory(spec()).resolve("x"), "");
    String error = preparer.unprepare(REF);
    assertTrue(error.contains("a directory that is not empty is in its place"), error);
    assertTrue(error.contains("remove what is there by hand"), error);
  }

  @Test
  @DisplayName(
      "another file of the CDI directory defining one of the claim's CDI names (JSON or YAML):"
          + " refused, naming the file; its own spec removed; prepared once the file is gone")
  void rivalSpecRefused() throws IOException {
    allocate(ours("hcas", "mlx5-0"), ours("hcas", "mlx5-1"));
    Preparer preparer = preparer();
    assertEquals("", preparer.prepare(REF).error());
    Path cdi = dir.resolve("cdi");
    Files.writeString(
        cdi.resolve("other.example-x.json"),
        "{\"cdiVersion\":\"0.5.0\",\"kind\":\"other.example/x\",\"devices\":[{\"name\":\""
            + UID
            + "-mlx5-0\"}]}");
    Files.writeString(
        cdi.resolve("unrelated.yaml"),
        "cdiVersion: 0.5.0\nkind: tandem.dev/hca\ndevices:\n- name: someone-else\n");
    assertEquals("", preparer.prepare(REF).error(), "other kinds and other names are no rivals");

    Path copy = cdi.resolve("backup copy.yaml");
    Files.writeString(
        copy, "cdiVersion: 0.5.0\nkind: tandem.dev/hca\ndevices:\n- name: " + UID + "-mlx5-1\n");
    String error = preparer.prepare(REF).error();
    assertTrue(error.contains("backup copy.yaml"), error);
    assertTrue(error.contains("the container would not get its HCA"), error);
    assertFalse(Files.exists(spec()), "its own spec removed with the failed Prepare");

    Files.delete(copy);
    assertEquals("", preparer.prepare(REF).error());
    assertTrue(Files.exists(spec()));
  }

  /** Replaces the file with what {@code make} puts in its place. */
  private static void replace(Path file, IoStep make) {
    try {
      Files.delete(file);
      make.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FunctionalInterface
  private interface IoStep {
    void run() throws IOException;
  }
}
