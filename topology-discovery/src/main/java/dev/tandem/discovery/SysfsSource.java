package dev.tandem.discovery;

import java.nio.file.Path;
import java.util.List;

/** A sysfs/procfs tree under a root ({@code ROOT/sys/...}, {@code ROOT/proc/...}); no library. */
final class SysfsSource implements TopologySource {

  private final String nodeName;
  private final Path root;

  SysfsSource(String nodeName, Path root) {
    this.nodeName = nodeName;
    this.root = root;
  }

  @Override
  public Discovery discover() {
    return SysfsReader.read(root, nodeName, List.of());
  }
}
