package dev.tandem.discovery.sysfs;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.TopologySource;
import java.nio.file.Path;
import java.util.List;

/** A sysfs/procfs tree under a root ({@code ROOT/sys/...}, {@code ROOT/proc/...}); no library. */
public record SysfsSource(String nodeName, Path root) implements TopologySource {

  @Override
  public Discovery discover() {
    return SysfsReader.read(root, nodeName, List.of());
  }
}
