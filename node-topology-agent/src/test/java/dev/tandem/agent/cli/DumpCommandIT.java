package dev.tandem.agent.cli;

import static dev.tandem.agent.cli.DumpRun.dump;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.HostileTopologies;
import dev.tandem.fixtures.HostileTopologies.Format;
import dev.tandem.fixtures.Topologies;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code dump} command: output formats, exit codes and messages. */
@DisplayName("dump prints the NodeTopology object or the matrix, with clear exit codes")
class DumpCommandIT {

  private static final Path RELION = Topologies.path("penguin-relion-x1904gt-p100x2.xml");
  private static final Path NDV4 = Topologies.path("nccl-topo/azure-ndv4-a100.xml");

  @TempDir Path dir;

  @Test
  @DisplayName(
      "--format json prints the resource the agent publishes; it maps back to the discovered machine")
  void json() {
    DumpRun run = dump("--hwloc-xml", RELION.toString(), "--node-name", "gpu-7");

    assertEquals(0, run.code(), run.err());
    NodeTopology resource = new KubernetesSerialization().unmarshal(run.out(), NodeTopology.class);
    assertEquals("tandem.dev/v1alpha1", resource.getApiVersion());
    assertEquals("gpu-7", resource.getMetadata().getName());
    assertEquals(
        TopologySources.discoverOnce(DiscoveryOptions.hwlocXml("gpu-7", RELION)).machine(),
        NodeTopologyMapper.toMachine(resource));
  }

  @Test
  @DisplayName("--format yaml prints the same object as YAML; the node name comes from NODE_NAME")
  void yaml() {
    DumpRun run =
        dump(Map.of("NODE_NAME", "from-env"), "--nccl-topo", NDV4.toString(), "--format", "yaml");

    assertEquals(0, run.code(), run.err());
    assertTrue(
        run.out().startsWith("---\napiVersion: \"tandem.dev/v1alpha1\"\nkind: \"NodeTopology\""),
        run.out());
    NodeTopology resource = new KubernetesSerialization().unmarshal(run.out(), NodeTopology.class);
    assertEquals("from-env", resource.getMetadata().getName());
    assertEquals(8, NodeTopologyMapper.toMachine(resource).hcas().size());
  }

  @Test
  @DisplayName("--format matrix prints the nvidia-smi-style matrix and the nearest HCA of each GPU")
  void matrix() {
    DumpRun run = dump("--hwloc-xml=" + RELION, "--format=matrix", "--node-name", "n");

    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("GPU0 -> mlx5_0 (PIX)"), run.out());
    assertTrue(run.out().contains("NUMA Affinity"), run.out());
  }

  @Test
  @DisplayName(
      "a file or directory that does not exist is a bad command line: exit 2 naming the flag, the variable and the path")
  void missingFile() {
    DumpRun run = dump("--hwloc-xml", "/nonexistent/topo.xml");

    assertEquals(2, run.code());
    assertEquals(
        "node-topology-agent dump: --hwloc-xml (TANDEM_HWLOC_XML): '/nonexistent/topo.xml' is not a"
            + " readable file\n",
        run.err());
    assertEquals("", run.out());
    DumpRun root = dump(Map.of("TANDEM_SYSFS_ROOT", "/nonexistent-root"), "--sysfs-only");
    assertEquals(2, root.code());
    assertTrue(
        root.err()
            .contains(
                "--sysfs-root (TANDEM_SYSFS_ROOT): '/nonexistent-root' is not a directory (from the"
                    + " environment)"),
        root.err());
  }

  @Test
  @DisplayName("a file that exists but is no hwloc export exits 1 naming the file and the reason")
  void unreadableFile() throws Exception {
    Path notXml = Files.writeString(dir.resolve("not.xml"), "this is not XML");
    DumpRun run = dump("--hwloc-xml", notXml.toString(), "--node-name", "n");

    assertEquals(1, run.code(), run.err());
    assertTrue(run.err().startsWith("node-topology-agent dump: "), run.err());
    assertTrue(run.err().contains(notXml.toString()), run.err());
  }

  @Test
  @DisplayName(
      "hostile files (issue #32: deep, huge, extreme os_index, malformed UTF-8) exit 1 with one line"
          + " naming the file and the limit")
  void hostileFiles() throws Exception {
    String hwloc = Files.readString(RELION);
    String nccl = Files.readString(NDV4);
    Map<String, byte[]> files =
        Map.of(
            "--hwloc-xml deep.xml",
            utf8(HostileTopologies.nest(hwloc, Format.HWLOC, 40, 5000)),
            "--nccl-topo deep.xml",
            utf8(HostileTopologies.nest(nccl, Format.NCCL, 3, 5_000)),
            "--hwloc-xml value.xml",
            utf8(HostileTopologies.hugeValue(hwloc, 7, 8 << 20)),
            "--nccl-topo elements.xml",
            utf8(HostileTopologies.repeat(nccl, -1, 200_000)),
            "--hwloc-xml os-index.xml",
            utf8(HostileTopologies.number(hwloc, "os_index", "-2147483648", -1)),
            "--nccl-topo utf8.xml",
            HostileTopologies.malformedUtf8(nccl, 5, new byte[] {(byte) 0xc3, 0x28}));
    Map<String, String> expected =
        Map.of(
            "--hwloc-xml deep.xml", "nests elements deeper than 64 levels",
            "--nccl-topo deep.xml", "nests elements deeper than 64 levels",
            "--hwloc-xml value.xml", "is larger than 1048576 bytes",
            "--nccl-topo elements.xml", "is larger than 1048576 bytes",
            "--hwloc-xml os-index.xml", "os_index '-2147483648' is not a number from 0 to",
            "--nccl-topo utf8.xml", "is not valid UTF-8: byte ");
    for (var e : files.entrySet()) {
      String[] flagAndName = e.getKey().split(" ");
      Path file = Files.write(dir.resolve(flagAndName[1]), e.getValue());

      DumpRun run = dump(flagAndName[0], file.toString(), "--node-name", "n");

      assertEquals(1, run.code(), e.getKey() + ": " + run.err());
      assertEquals("", run.out());
      assertEquals(1, run.err().lines().count(), run.err());
      assertTrue(run.err().startsWith("node-topology-agent dump: "), run.err());
      assertTrue(run.err().contains(file.toString()), run.err());
      assertTrue(run.err().contains(expected.get(e.getKey())), e.getKey() + ": " + run.err());
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  @DisplayName(
      "--help exits 0; unknown flags, missing values, bad formats and two sources exit 2 naming the problem")
  void commandLine() {
    assertEquals(0, dump("--help").code());
    assertTrue(dump("--help").out().contains("--sysfs-root DIR"));
    DumpRun unknown = dump("--hwloc", "x");
    assertEquals(2, unknown.code());
    assertTrue(unknown.err().contains("unknown flag '--hwloc'"), unknown.err());
    assertEquals(2, dump("--node-name").code());
    assertTrue(
        dump("--format", "xml").err().contains("--format: 'xml' is not one of json, yaml, matrix"));
    assertEquals(2, dump("--hwloc-xml", "a", "--nccl-topo", "b").code());
    assertTrue(
        dump("--sysfs-only", "--hwloc-xml", "a")
            .err()
            .contains("(got --hwloc-xml and --sysfs-only)"));
  }

  @Test
  @DisplayName("this machine (no GPU, no HCA): an empty topology, exit 0")
  void thisMachine() {
    DumpRun run = dump("--node-name", "here");

    assertEquals(0, run.code(), run.err());
    NodeTopology resource = new KubernetesSerialization().unmarshal(run.out(), NodeTopology.class);
    assertTrue(NodeTopologyMapper.toMachine(resource).devices().isEmpty());
  }
}
