package dev.tandem.discovery.hwloc;

import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.read.SafeXml;
import java.io.ByteArrayInputStream;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Checks, before libhwloc sees it, that a file is well-formed XML (all of it) with an {@code
 * <topology>} root of a version libhwloc 2.x imports (none/1.x/2.x), so that errors name the file,
 * the line and column, and the reason instead of hwloc's bare failure.
 */
final class HwlocXmlVersion {

  private HwlocXmlVersion() {}

  static void check(byte[] bytes, String what) {
    try {
      XMLInputFactory f = XMLInputFactory.newFactory();
      f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
      f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
      XMLStreamReader r = f.createXMLStreamReader(new ByteArrayInputStream(bytes));
      while (r.hasNext() && r.next() != XMLStreamReader.START_ELEMENT) {
        // skip the prolog
      }
      if (!r.isStartElement()) {
        throw new DiscoveryException(what + " has no XML element: not an hwloc XML topology");
      }
      if (!r.getLocalName().equals("topology")) {
        throw new DiscoveryException(
            what
                + " is not an hwloc XML topology: its root element is <"
                + r.getLocalName()
                + ">, expected <topology>"
                + (r.getLocalName().equals("system")
                    ? " (this looks like an NCCL topology file: use --nccl-topo)"
                    : ""));
      }
      String version = r.getAttributeValue(null, "version");
      if (version != null && !version.startsWith("1.") && !version.startsWith("2.")) {
        throw new DiscoveryException(
            what
                + " is hwloc XML version "
                + version
                + ", which libhwloc 2.x cannot import (it reads versions 1.x and 2.x); export it again with "
                + "hwloc 2 (lstopo --of xml) or with hwloc 3's v2 export option");
      }
      while (r.hasNext()) {
        r.next(); // the rest of the document: libhwloc would refuse it without saying where
      }
    } catch (XMLStreamException e) {
      throw SafeXml.notWellFormed(what, e);
    }
  }
}
