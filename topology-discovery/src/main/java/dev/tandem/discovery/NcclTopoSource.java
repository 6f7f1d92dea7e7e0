package dev.tandem.discovery;

import java.nio.file.Path;

/** An NCCL topology file (a cloud vendor's grouping of a VM's GPUs and NICs); no library. */
record NcclTopoSource(String nodeName, Path file) implements TopologySource {

  @Override
  public Discovery discover() {
    return NcclTopoReader.read(
        NamedFile.text(file, "NCCL topology file"), nodeName, file.toString());
  }
}
