package dev.tandem.discovery.read;

import dev.tandem.discovery.DiscoveryException;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.stream.Location;
import javax.xml.stream.XMLStreamException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * A DOM parser that never loads external DTDs or entities (hwloc XML names {@code hwloc2.dtd}) and
 * builds no document past {@link XmlLimits}.
 */
public final class SafeXml {

  private SafeXml() {}

  /** Parses XML text; {@code what} names the input in the error (a file path or "hwloc export"). */
  public static Document parse(String text, String what) {
    return parse(text, what, XmlLimits.ValueRule.NONE);
  }

  /**
   * Checks XML text against {@link XmlLimits} and the format's {@code rule}, then parses it; {@code
   * what} names the input in errors.
   */
  public static Document parse(String text, String what, XmlLimits.ValueRule rule) {
    XmlLimits.check(text, what, rule);
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
      f.setFeature("http://xml.org/sax/features/external-general-entities", false);
      f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
      f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
      f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
      f.setExpandEntityReferences(false);
      f.setNamespaceAware(false);
      DocumentBuilder b = f.newDocumentBuilder();
      b.setErrorHandler(null);
      return b.parse(new InputSource(new StringReader(text)));
    } catch (SAXParseException e) {
      throw notWellFormed(what, e.getLineNumber(), e.getColumnNumber(), e.getMessage(), e);
    } catch (SAXException e) {
      throw new DiscoveryException(what + " is not well-formed XML: " + e.getMessage(), e);
    } catch (ParserConfigurationException | IOException e) {
      throw new DiscoveryException("cannot parse " + what + ": " + e.getMessage(), e);
    }
  }

  /** The error for XML that does not parse, naming where the parser stopped. */
  public static DiscoveryException notWellFormed(String what, XMLStreamException e) {
    Location at = e.getLocation();
    // the JDK's message starts with "ParseError at [row,col]:[l,c]\nMessage: "; the location is
    // said once, below
    String reason =
        e.getMessage()
            .replaceFirst("(?s)^ParseError at \\[row,col\\]:\\[\\d+,\\d+\\]\\s*Message:\\s*", "");
    return at == null
        ? new DiscoveryException(what + " is not well-formed XML: " + reason, e)
        : notWellFormed(what, at.getLineNumber(), at.getColumnNumber(), reason, e);
  }

  private static DiscoveryException notWellFormed(
      String what, int line, int column, String reason, Exception cause) {
    return new DiscoveryException(
        what
            + " is not well-formed XML at line "
            + line
            + ", column "
            + column
            + ": "
            + reason
            + " (fix the file or export it again)",
        cause);
  }

  public static List<Element> children(Element parent, String tag) {
    List<Element> out = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && (tag == null || e.getTagName().equals(tag))) {
        out.add(e);
      }
    }
    return out;
  }

  /** The attribute's value, or null when absent (DOM gives "" for absent attributes). */
  public static String attr(Element e, String name) {
    return e.hasAttribute(name) ? e.getAttribute(name) : null;
  }
}
