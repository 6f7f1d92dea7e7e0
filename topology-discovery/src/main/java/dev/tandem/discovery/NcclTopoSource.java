package dev.tandem.discovery;

import java.nio.file.Path;

/** An NCCL topology file (a cloud vendor's grouping of a VM's GPUs and NICs); no library. */
final class NcclTopoSource implements TopologySource {

  private final String nodeName;
  private final Path file;

  NcclTopoSource(String nodeName, Path file) {
    this.nodeName = nodeName;
    this.file = file;
  }

  @Override
  public Discovery discover() {
    return NcclTopoReader.read(
        NamedFile.text(file, "NCCL topology file"), nodeName, file.toString());
  }
}
