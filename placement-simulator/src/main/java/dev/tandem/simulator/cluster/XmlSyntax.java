package dev.tandem.simulator.cluster;

import java.io.IOException;
import java.io.StringReader;
import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParserFactory;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Checks that a topology file is well-formed XML before discovery reads it, so that a broken file
 * is refused naming its line and column (libhwloc only says it cannot load it). No DTD or entity is
 * fetched.
 */
final class XmlSyntax {

  private XmlSyntax() {}

  /**
   * @throws ClusterFileException {@code FILE:LINE:COLUMN: not well-formed XML: …}
   */
  static void check(String text, String file) {
    try {
      SAXParserFactory f = SAXParserFactory.newInstance();
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
      f.setFeature("http://xml.org/sax/features/external-general-entities", false);
      f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
      f.newSAXParser().parse(new InputSource(new StringReader(text)), new DefaultHandler());
    } catch (SAXParseException e) {
      throw new ClusterFileException(
          file
              + ":"
              + e.getLineNumber()
              + ":"
              + e.getColumnNumber()
              + ": not well-formed XML: "
              + e.getMessage(),
          e);
    } catch (SAXException | ParserConfigurationException | IOException e) {
      throw new ClusterFileException(file + ": cannot parse as XML: " + e.getMessage(), e);
    }
  }
}
