package dev.tandem.discovery;

import java.nio.file.Path;
import java.util.List;

/** A sysfs/procfs tree under a root ({@code ROOT/sys/...}, {@code ROOT/proc/...}); no library. */
record SysfsSource(String nodeName, Path root) implements TopologySource {

  @Override
  public Discovery discover() {
    return SysfsReader.read(root, nodeName, List.of());
  }
}
