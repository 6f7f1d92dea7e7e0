package dev.tandem.discovery.read;

import dev.tandem.discovery.DiscoveryException;
import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.stream.Location;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The bounds every topology XML document is checked against, in one streaming pass, before libhwloc
 * or a DOM reads it: nesting depth, element count, the size of one value (attribute or text), and
 * the format's value ranges ({@link ValueRule}). The file's size and encoding are checked when it
 * is read ({@link NamedFile}). A document past a bound is refused naming the input, the limit and
 * where it was crossed; libhwloc's XML import recurses once per level and segfaults on a file
 * nested thousands of levels deep, so a file must pass this check before libhwloc sees it.
 *
 * <p>The limits leave a wide margin over real exports: the largest fixture (a 224-CPU Dell XE8640)
 * has 1,408 elements, nests 12 levels deep and its longest value has 76 characters.
 */
public final class XmlLimits {

  /** Deepest element nesting accepted (real exports: at most 12). */
  public static final int MAX_DEPTH = 64;

  /**
   * Most elements in one document (real exports: at most 1,408). Bounded by the agent's heap
   * ({@code -Xmx24m}): an NCCL file of 10,000 elements is read in it, one of 20,000 exhausted it.
   */
  public static final int MAX_ELEMENTS = 10_000;

  /**
   * Longest attribute value or text, in characters: an hwloc CPU set of 8,192 CPUs is 2,816
   * characters.
   */
  public static final int MAX_VALUE_CHARS = 65_536;

  /**
   * Largest topology file read, in bytes (real exports: at most 226 KB); with {@link
   * #MAX_ELEMENTS}, what the agent's heap holds as a DOM.
   */
  public static final long MAX_FILE_BYTES = 1L << 20;

  /** Where these limits are explained to the operator. */
  static final String DOCS = "docs/discovery.md#limits-on-topology-files";

  /**
   * The format's checks of one element's attribute values (number ranges, addresses); throws an
   * {@link IllegalArgumentException} saying what is wrong, which the check reports with the place.
   */
  @FunctionalInterface
  public interface ValueRule {

    /** Accepts every value. */
    ValueRule NONE = (element, attributes) -> {};

    void check(String element, Map<String, String> attributes);
  }

  /** The root element of a checked document: its name and attributes. */
  public record Root(String name, Map<String, String> attributes) {}

  private XmlLimits() {}

  /**
   * Checks the whole document; {@code what} names it in errors.
   *
   * @return the root element
   */
  public static Root check(String text, String what, ValueRule rule) {
    try {
      XMLStreamReader r = factory().createXMLStreamReader(new StringReader(text));
      Root root = null;
      int depth = 0;
      int elements = 0;
      int textRun = 0; // the parser hands a long text over in pieces
      while (r.hasNext()) {
        int event = r.next();
        boolean isText =
            event == XMLStreamReader.CHARACTERS
                || event == XMLStreamReader.CDATA
                || event == XMLStreamReader.SPACE;
        textRun = isText ? textRun + r.getTextLength() : 0;
        if (isText) {
          checkLength(textRun, r, what, "a text");
        } else if (event == XMLStreamReader.START_ELEMENT) {
          depth++;
          elements++;
          if (depth > MAX_DEPTH) {
            throw beyond(what, r, "nests elements deeper than " + MAX_DEPTH + " levels");
          }
          if (elements > MAX_ELEMENTS) {
            throw beyond(what, r, "has more than " + MAX_ELEMENTS + " elements");
          }
          Map<String, String> attributes = attributes(r, what);
          checkValues(r, what, rule, attributes);
          root = root == null ? new Root(r.getLocalName(), attributes) : root;
        } else if (event == XMLStreamReader.END_ELEMENT) {
          depth--;
        }
      }
      if (root == null) {
        throw new DiscoveryException(what + " has no XML element");
      }
      return root;
    } catch (XMLStreamException e) {
      throw SafeXml.notWellFormed(what, e);
    }
  }

  private static XMLInputFactory factory() {
    XMLInputFactory f = XMLInputFactory.newFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    return f;
  }

  private static Map<String, String> attributes(XMLStreamReader r, String what) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < r.getAttributeCount(); i++) {
      String value = r.getAttributeValue(i);
      checkLength(value.length(), r, what, "the value of " + r.getAttributeLocalName(i));
      out.put(r.getAttributeLocalName(i), value);
    }
    return out;
  }

  private static void checkLength(int length, XMLStreamReader r, String what, String value) {
    if (length > MAX_VALUE_CHARS) {
      throw beyond(
          what,
          r,
          value + " is " + length + " characters, over " + MAX_VALUE_CHARS + " characters");
    }
  }

  private static void checkValues(
      XMLStreamReader r, String what, ValueRule rule, Map<String, String> attributes) {
    try {
      rule.check(r.getLocalName(), attributes);
    } catch (IllegalArgumentException e) {
      Location at = r.getLocation();
      throw new DiscoveryException(
          what
              + " at line "
              + at.getLineNumber()
              + ", column "
              + at.getColumnNumber()
              + ": <"
              + r.getLocalName()
              + ">: "
              + e.getMessage(),
          e);
    }
  }

  private static DiscoveryException beyond(String what, XMLStreamReader r, String problem) {
    Location at = r.getLocation();
    return new DiscoveryException(
        what
            + " "
            + problem
            + " (at line "
            + at.getLineNumber()
            + ", column "
            + at.getColumnNumber()
            + "): over the limit for topology files, see "
            + DOCS);
  }
}
