package dev.tandem.discovery.read;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.DiscoveryException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

@DisplayName("topology XML is parsed without reading other files or expanding entities")
class SafeXmlTest {

  @TempDir Path dir;

  @Test
  @DisplayName("an external entity naming a local file is not read into the document")
  void externalEntityNotRead() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "s3cr3t-token");
    String xml =
        "<?xml version=\"1.0\"?>\n"
            + "<!DOCTYPE topology [<!ENTITY leak SYSTEM \""
            + secret.toUri()
            + "\">]>\n"
            + "<topology version=\"2.0\"><object type=\"Machine\">&leak;</object></topology>";
    try {
      Document doc = SafeXml.parse(xml, "evil.xml");
      String text = doc.getDocumentElement().getTextContent();
      assertFalse(text.contains("s3cr3t"), "the file was read into the document: " + text);
    } catch (DiscoveryException e) {
      assertTrue(e.getMessage().contains("evil.xml"), e.getMessage());
      assertFalse(e.getMessage().contains("s3cr3t"), e.getMessage());
    }
  }

  @Test
  @DisplayName("nested entities (the billion laughs) are refused naming the file, not expanded")
  void entityExpansionRefused() {
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<!DOCTYPE topology [\n");
    xml.append("<!ENTITY l0 \"lol\">\n");
    for (int i = 1; i <= 12; i++) {
      xml.append("<!ENTITY l")
          .append(i)
          .append(" \"")
          .append(("&l" + (i - 1) + ";").repeat(10))
          .append("\">\n");
    }
    xml.append("]>\n<topology version=\"2.0\"><info name=\"x\" value=\"&l12;\"/></topology>");
    DiscoveryException e =
        assertThrows(DiscoveryException.class, () -> SafeXml.parse(xml.toString(), "laughs.xml"));
    assertTrue(e.getMessage().contains("laughs.xml"), e.getMessage());
  }
}
