package dev.tandem.discovery.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.DiscoveryException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("every topology XML document is bounded before a DOM or libhwloc reads it")
class XmlLimitsTest {

  private static String nested(int levels) {
    return "<a>".repeat(levels) + "</a>".repeat(levels);
  }

  private static String refused(String xml) {
    return assertThrows(
            DiscoveryException.class, () -> XmlLimits.check(xml, "t.xml", XmlLimits.ValueRule.NONE))
        .getMessage();
  }

  @Test
  @DisplayName("64 levels pass; the 65th is refused naming the limit and where")
  void depth() {
    assertEquals("a", XmlLimits.check(nested(64), "t.xml", XmlLimits.ValueRule.NONE).name());
    assertEquals(
        "t.xml nests elements deeper than 64 levels (at line 1, column 196): over the limit for"
            + " topology files, see docs/discovery.md#limits-on-topology-files",
        refused(nested(65)));
  }

  @Test
  @DisplayName("10,000 elements pass; the 10,001st is refused")
  void elements() {
    XmlLimits.check("<r>" + "<e/>".repeat(9_999) + "</r>", "t.xml", XmlLimits.ValueRule.NONE);
    assertTrue(
        refused("<r>" + "<e/>".repeat(10_000) + "</r>")
            .startsWith("t.xml has more than 10000 elements"));
  }

  @Test
  @DisplayName("an attribute value or a text over 64 Ki characters is refused")
  void values() {
    XmlLimits.check("<r a=\"" + "x".repeat(65_536) + "\"/>", "t.xml", XmlLimits.ValueRule.NONE);
    assertTrue(
        refused("<r a=\"" + "x".repeat(65_537) + "\"/>")
            .startsWith("t.xml the value of a is 65537 characters, over 65536 characters"));
    assertTrue(
        refused("<r>" + "x".repeat(200_000) + "</r>").contains("a text is "),
        refused("<r>" + "x".repeat(200_000) + "</r>"));
  }

  @Test
  @DisplayName("the format's value rule is reported with the element and its place")
  void valueRule() {
    XmlLimits.ValueRule rule =
        (element, attributes) ->
            IdRanges.numaNode("numaid", attributes.getOrDefault("numaid", "0"));
    DiscoveryException e =
        assertThrows(
            DiscoveryException.class,
            () -> XmlLimits.check("<system>\n<cpu numaid=\"-1\"/></system>", "t.xml", rule));
    assertEquals(
        "t.xml at line 2, column 19: <cpu>: numaid '-1' is not a number from 0 to 1023 (a Linux"
            + " NUMA node number: MAX_NUMNODES is at most 1024)",
        e.getMessage());
  }
}
