package dev.tandem.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the node settings' one translation into discovery options")
class DiscoveryOptionsTest {

  private static final Path FILE = Path.of("/topologies/node.xml");
  private static final Path ROOT = Path.of("/host");

  @Test
  @DisplayName(
      "nothing named: this machine, the libraries first, sysfs under the root after; sysfs only when asked")
  void thisMachine() {
    assertEquals(
        DiscoveryOptions.live("n"),
        DiscoveryOptions.fromNodeSettings("n", null, null, Path.of("/"), false));
    assertEquals(
        new DiscoveryOptions("n", null, ROOT, null, true),
        DiscoveryOptions.fromNodeSettings("n", null, null, ROOT, false));
    assertEquals(
        DiscoveryOptions.sysfs("n", ROOT),
        DiscoveryOptions.fromNodeSettings("n", null, null, ROOT, true));
  }

  @Test
  @DisplayName(
      "a file named: the hwloc export alone; the NCCL file with the names of this VM under the root")
  void files() {
    assertEquals(
        DiscoveryOptions.hwlocXml("n", FILE),
        DiscoveryOptions.fromNodeSettings("n", FILE, null, Path.of("/"), false));
    assertEquals(
        new DiscoveryOptions("n", null, ROOT, FILE, false),
        DiscoveryOptions.fromNodeSettings("n", null, FILE, ROOT, false));
  }
}
