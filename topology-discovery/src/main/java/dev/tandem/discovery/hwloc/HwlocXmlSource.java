package dev.tandem.discovery.hwloc;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.read.NamedFile;
import java.nio.file.Path;

/**
 * An hwloc XML export (v1 or v2 format), checked for its version, then loaded and exported again by
 * libhwloc so that every file reaches the reader in the 2.x form.
 */
public final class HwlocXmlSource implements TopologySource {

  private final String nodeName;
  private final Path file;
  private final Hwloc hwloc;

  public HwlocXmlSource(String nodeName, Path file, Hwloc hwloc) {
    this.nodeName = nodeName;
    this.file = file;
    this.hwloc = hwloc;
  }

  @Override
  public Discovery discover() {
    HwlocXmlVersion.check(NamedFile.text(file, "hwloc XML file"), file.toString());
    return HwlocXmlReader.read(hwloc.exportFile(file), nodeName, "hwloc-xml", file.toString());
  }
}
