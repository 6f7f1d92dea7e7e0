package dev.tandem.discovery.nccl;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.read.NamedFile;
import dev.tandem.discovery.sysfs.KernelNames;
import dev.tandem.discovery.sysfs.NvidiaProc;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An NCCL topology file (a cloud vendor's grouping of a VM's GPUs and NICs); no library. The file
 * gives the grouping. On the VM it describes ({@code hostRoot} set), the names are this node's, as
 * the kubelet reports them: a GPU's id is the UUID the NVIDIA driver's {@code
 * /proc/driver/nvidia/gpus/<bus id>/information} gives, as NVIDIA's device plugin names it, and
 * each NIC is named by the ibverbs devices its PCI function shows in sysfs ({@link KernelNames}).
 * Without {@code hostRoot} (the simulator, the demo) the file is read alone: bus ids and the file's
 * {@code <net name>}s.
 *
 * @param hostRoot the root {@code /sys} and {@code /proc} resolve against; null to read the file
 *     alone
 */
public record NcclTopoSource(String nodeName, Path file, Path hostRoot) implements TopologySource {

  @Override
  public Discovery discover() {
    Discovery d =
        NcclTopoReader.read(NamedFile.text(file, "NCCL topology file"), nodeName, file.toString());
    if (hostRoot == null) {
      return d;
    }
    List<String> notes = new ArrayList<>(d.notes());
    Machine m = NvidiaProc.withUuids(d.machine(), hostRoot, notes);
    m = KernelNames.named(m, hostRoot, file.toString(), notes);
    return new Discovery(m, d.source(), notes, d.warnings());
  }
}
