package dev.tandem.discovery.hwloc;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.read.NamedFile;
import java.nio.file.Path;

/**
 * An hwloc XML export (v1 or v2 format), read once, checked ({@link HwlocXmlVersion}), then loaded
 * from those same bytes and exported again by libhwloc so that every file reaches the reader in the
 * 2.x form. libhwloc never opens the file: a file replaced after the check is not what it parses.
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
    String what = file.toString();
    byte[] document = NamedFile.bytes(file, "hwloc XML file");
    HwlocXmlVersion.check(NamedFile.utf8(document, "hwloc XML file " + what), what);
    return HwlocXmlReader.read(hwloc.exportDocument(document, what), nodeName, "hwloc-xml", what);
  }
}
