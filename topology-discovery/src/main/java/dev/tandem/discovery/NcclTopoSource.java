package dev.tandem.discovery;

import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An NCCL topology file (a cloud vendor's grouping of a VM's GPUs and NICs); no library. The file
 * names GPUs by bus id only; where the NVIDIA driver's {@code /proc/driver/nvidia/gpus/<bus
 * id>/information} under {@code hostRoot} gives a GPU's UUID, that becomes its id, as NVIDIA's
 * device plugin names it.
 */
record NcclTopoSource(String nodeName, Path file, Path hostRoot) implements TopologySource {

  @Override
  public Discovery discover() {
    Discovery d =
        NcclTopoReader.read(NamedFile.text(file, "NCCL topology file"), nodeName, file.toString());
    List<String> notes = new ArrayList<>(d.notes());
    Machine m = NvidiaProc.withUuids(d.machine(), hostRoot, notes);
    return new Discovery(m, d.source(), notes, d.warnings());
  }
}
