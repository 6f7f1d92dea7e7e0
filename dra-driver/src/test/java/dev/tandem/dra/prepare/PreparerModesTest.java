package dev.tandem.dra.prepare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.api.container.DeviceInfo;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.dra.cdi.CdiDirectory;
import dev.tandem.dra.slices.HcaShape;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Prepare of SR-IOV VFs (CDI spec and Device Information file) and of shared HCAs")
class PreparerModesTest {

  static final String DRIVER = "tandem.dev";
  static final String UID = "7d0c1e2f-0000-4000-8000-000000000002";
  static final ClaimRef REF = new ClaimRef("team", UID, "vf-claim");

  @TempDir Path dir;

  final Map<String, ClaimAllocation> claims = new HashMap<>();
  Machine machine;
  Device pf;
  Device vf;

  /** mlx5_0 with two VFs, mlx5_3 and mlx5_4, as sysfs discovery reads them (with uverbs). */
  @BeforeEach
  void discover() throws IOException {
    Path root = dir.resolve("root");
    FakeSysfs.write(
        root,
        TestMachines.withVirtualFunctions(
            TestMachines.twoSwitchesAndLoneHca("n1"), "mlx5_0", "mlx5_3", "mlx5_4"));
    machine = TopologySources.discoverOnce(DiscoveryOptions.sysfs("n1", root)).machine();
    pf = machine.device("mlx5_0").orElseThrow();
    vf = machine.device("mlx5_3").orElseThrow();
  }

  Preparer preparer(Path deviceInfo) {
    return new Preparer(
        DRIVER,
        () -> PoolBuilder.build(machine, PoolSpec.joint().withShape(HcaShape.SRIOV)),
        (ns, name) -> Optional.ofNullable(claims.get(ns + "/" + name)),
        new CdiDirectory(dir.resolve("cdi")),
        deviceInfo,
        Checkpoint.open(dir.resolve("checkpoint.json")),
        "rdma/hca");
  }

  Preparer preparer() {
    return preparer(dir.resolve("devinfo"));
  }

  void allocate(String uid, String name, String... devices) {
    List<AllocatedDevice> results =
        Stream.of(devices).map(d -> new AllocatedDevice("r" + d, DRIVER, "n1", d)).toList();
    claims.put("team/" + name, new ClaimAllocation(uid, true, results));
  }

  Path deviceInfoFile() {
    return dir.resolve("devinfo").resolve("rdma-hca-" + vf.address() + "-device.json");
  }

  Path spec(String uid) {
    return dir.resolve("cdi").resolve("tandem.dev-hca_" + uid + ".json");
  }

  static JsonNode json(Path file) throws IOException {
    return new ObjectMapper().readTree(file.toFile());
  }

  @Test
  @DisplayName(
      "a VF: the spec holds its uverbs and PCI address; its Device Information file names the VF,"
          + " its RDMA device and its PF, as the device plugin writes it; Unprepare removes both")
  void virtualFunction() throws IOException {
    allocate(UID, "vf-claim", "mlx5-3");
    ClaimOutcome o = preparer().prepare(REF);
    assertEquals("", o.error());
    assertEquals(List.of("tandem.dev/hca=" + UID + "-mlx5-3"), o.devices().get(0).cdiIds());

    JsonNode spec = json(spec(UID));
    assertEquals(
        "/dev/infiniband/" + vf.hca().uverbs(),
        spec.get("devices")
            .get(0)
            .get("containerEdits")
            .get("deviceNodes")
            .get(0)
            .get("path")
            .asText());
    assertTrue(
        spec.get("containerEdits")
            .get("env")
            .toString()
            .contains("PCIDEVICE_RDMA_HCA=" + vf.address()),
        spec.toString());

    assertEquals(
        DeviceInfo.of("rdma/hca", vf.address().toString(), vf).orElseThrow().json(),
        Files.readString(deviceInfoFile()),
        "the device plugin's name and content for the VF");
    JsonNode pci = json(deviceInfoFile()).get("pci");
    assertEquals(vf.address().toString(), pci.get("pci-address").asText());
    assertEquals("mlx5_3", pci.get("rdma-device").asText());
    assertEquals(pf.address().toString(), pci.get("pf-pci-address").asText());
    try (Stream<Path> files = Files.list(dir.resolve("devinfo"))) {
      assertEquals(List.of(deviceInfoFile()), files.toList(), "no temporary file left behind");
    }

    // lost (tmpfs after a reboot): written again from the checkpoint's claim
    Files.delete(deviceInfoFile());
    assertEquals(o, preparer().prepare(REF));
    assertTrue(Files.exists(deviceInfoFile()));

    assertEquals("", preparer().unprepare(REF), "a restarted driver, from the checkpoint");
    assertFalse(Files.exists(deviceInfoFile()));
    assertFalse(Files.exists(spec(UID)));
  }

  @Test
  @DisplayName("a whole HCA gets no Device Information file: only VFs do")
  void wholeHca() throws IOException {
    allocate(UID, "vf-claim", "mlx5-1");
    assertEquals("", preparer().prepare(REF).error());
    assertFalse(Files.exists(dir.resolve("devinfo")));
  }

  @Test
  @DisplayName("a VF without uverbs: the error names the VF and the fix; nothing written")
  void vfWithoutUverbs() {
    machine =
        new Machine(
            machine.nodeName(),
            machine.source(),
            machine.pcie(),
            machine.devices().stream()
                .map(
                    d ->
                        d == vf
                            ? d.toBuilder().hca(d.hca().toBuilder().uverbs(null).build()).build()
                            : d)
                .toList());
    allocate(UID, "vf-claim", "mlx5-3");
    String error = preparer().prepare(REF).error();
    assertTrue(
        error.startsWith(
            "claim team/vf-claim: no uverbs character device known for SR-IOV VF mlx5_3 (mlx5-3)"
                + " on node n1"),
        error);
    assertTrue(error.contains("ib_uverbs") && error.contains("vfio-pci"), error);
    assertFalse(Files.exists(spec(UID)));
    assertFalse(Files.exists(deviceInfoFile()));
  }

  @Test
  @DisplayName(
      "a device-info directory that cannot be written: the error names the file, the VF and the"
          + " fix; the CDI spec is removed again and the claim not recorded")
  void unwritableDeviceInfo() throws IOException {
    Path notADirectory = Files.writeString(dir.resolve("devinfo-file"), "");
    allocate(UID, "vf-claim", "mlx5-3");
    String error = preparer(notADirectory).prepare(REF).error();
    assertTrue(error.startsWith("claim team/vf-claim: the device-info file "), error);
    assertTrue(error.contains("SR-IOV VF mlx5-3 (" + vf.address() + ")"), error);
    assertTrue(error.contains("--device-info-dir"), error);
    assertFalse(Files.exists(spec(UID)), "no spec without its device-info file");
    assertTrue(Checkpoint.open(dir.resolve("checkpoint.json")).claims().isEmpty());
  }

  @Test
  @DisplayName(
      "a shared HCA: each claim its own spec and CDI name; one claim given it twice, one device")
  void sharedHca() throws IOException {
    String other = "7d0c1e2f-0000-4000-8000-000000000003";
    allocate(UID, "vf-claim", "mlx5-1", "mlx5-1");
    allocate(other, "second", "mlx5-1");
    ClaimOutcome first = preparer().prepare(REF);
    ClaimOutcome second = preparer().prepare(new ClaimRef("team", other, "second"));
    assertEquals("", first.error());
    assertEquals("", second.error());
    assertEquals(2, first.devices().size(), "one answer per allocation result");
    first
        .devices()
        .forEach(d -> assertEquals(List.of("tandem.dev/hca=" + UID + "-mlx5-1"), d.cdiIds()));
    assertEquals(List.of("tandem.dev/hca=" + other + "-mlx5-1"), second.devices().get(0).cdiIds());
    JsonNode spec = json(spec(UID));
    assertEquals(1, spec.get("devices").size(), spec.toString());
    assertTrue(
        spec.get("containerEdits").get("env").toString().contains("TANDEM_RDMA_DEVICES=mlx5_1\""),
        spec.toString());
    assertTrue(Files.exists(spec(other)));
    assertEquals("", preparer().unprepare(REF));
    assertTrue(Files.exists(spec(other)), "the other claim's spec stays");
  }
}
