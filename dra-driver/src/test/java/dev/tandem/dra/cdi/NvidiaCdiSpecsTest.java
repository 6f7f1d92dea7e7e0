package dev.tandem.dra.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("NVIDIA's CDI spec on the node: every GPU named by UUID, or a named error")
class NvidiaCdiSpecsTest {

  @TempDir Path dir;

  final Machine node = TestMachines.gpusOnRootPorts("n1");

  /** A spec shaped as nvidia-ctk cdi generate writes it: index and UUID names, and all. */
  void toolkitSpec(Path cdi, String... uuids) throws IOException {
    StringBuilder yaml =
        new StringBuilder(
            "---\ncdiVersion: 0.5.0\nkind: nvidia.com/gpu\ncontainerEdits:\n"
                + "  deviceNodes:\n  - path: /dev/nvidiactl\ndevices:\n");
    for (int i = 0; i < uuids.length; i++) {
      String edits = "  containerEdits:\n    deviceNodes:\n    - path: /dev/nvidia" + i + "\n";
      yaml.append("- name: \"").append(i).append("\"\n").append(edits);
      yaml.append("- name: ").append(uuids[i]).append('\n').append(edits);
    }
    yaml.append("- name: all\n  containerEdits:\n    deviceNodes:\n    - path: /dev/nvidia0\n");
    Files.createDirectories(cdi);
    Files.writeString(cdi.resolve("nvidia.yaml"), yaml.toString());
  }

  @Test
  @DisplayName(
      "the toolkit's YAML names both GPUs; other kinds and broken files are not read as it")
  void names() throws IOException {
    Path run = dir.resolve("run");
    toolkitSpec(run, node.gpus().get(0).id(), node.gpus().get(1).id());
    Files.writeString(
        run.resolve("tandem.dev-hca_x.json"),
        "{\"cdiVersion\":\"0.5.0\",\"kind\":\"tandem.dev/hca\",\"devices\":[{\"name\":\"x\"}]}");
    Files.writeString(run.resolve("broken.json"), "{not a spec");
    Files.writeString(run.resolve("notes.txt"), "kind: nvidia.com/gpu");
    assertEquals(
        Set.of("0", "1", "all", node.gpus().get(0).id(), node.gpus().get(1).id()),
        NvidiaCdiSpecs.gpuNames(List.of(dir.resolve("etc"), run)));
    NvidiaCdiSpecs.requireAll(node.gpus(), List.of(dir.resolve("etc"), run));
  }

  @Test
  @DisplayName("a spec named *.yml is not read: runtimes do not read it either")
  void ymlNotRead() throws IOException {
    Path run = dir.resolve("run");
    toolkitSpec(run, node.gpus().get(0).id(), node.gpus().get(1).id());
    Files.move(run.resolve("nvidia.yaml"), run.resolve("nvidia.yml"));
    CdiException e =
        assertThrows(
            CdiException.class, () -> NvidiaCdiSpecs.requireAll(node.gpus(), List.of(run)));
    assertTrue(e.getMessage().contains("read only *.json and *.yaml"), e.getMessage());
  }

  @Test
  @DisplayName("a GPU the spec does not name, or no spec at all: the GPU, the directories, the fix")
  void missing() throws IOException {
    Path run = dir.resolve("run");
    toolkitSpec(run, node.gpus().get(0).id());
    CdiException e =
        assertThrows(
            CdiException.class, () -> NvidiaCdiSpecs.requireAll(node.gpus(), List.of(run)));
    assertTrue(
        e.getMessage()
            .startsWith(
                "no CDI spec of NVIDIA's container toolkit names GPU "
                    + node.gpus().get(1).id()
                    + " (kind nvidia.com/gpu in ["
                    + run
                    + "]; runtimes read only *.json and *.yaml files there)"),
        e.getMessage());
    assertTrue(e.getMessage().contains("nvidia-ctk cdi generate"), e.getMessage());
    assertFalse(e.getMessage().contains("could not be read"), e.getMessage());
    Files.writeString(run.resolve("nvidia-broken.yaml"), "kind: [nvidia.com/gpu");
    CdiException broken =
        assertThrows(
            CdiException.class, () -> NvidiaCdiSpecs.requireAll(node.gpus(), List.of(run)));
    assertTrue(
        broken
            .getMessage()
            .contains(
                "these spec files could not be read and were skipped: "
                    + run.resolve("nvidia-broken.yaml")
                    + " ("),
        broken.getMessage());
    CdiException none =
        assertThrows(
            CdiException.class,
            () -> NvidiaCdiSpecs.requireAll(node.gpus(), List.of(dir.resolve("nothing"))));
    assertTrue(none.getMessage().contains(node.gpus().get(0).id()), none.getMessage());
  }
}
