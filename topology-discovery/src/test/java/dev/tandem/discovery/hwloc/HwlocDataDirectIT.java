package dev.tandem.discovery.hwloc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.Topologies;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * libhwloc keeps a ConnectX-8 Data Direct function (class 0801, a DMA controller): hwloc drops PCI
 * functions of such classes unless the I/O types filter is KEEP_ALL, as {@link Hwloc} sets it.
 */
@DisplayName("libhwloc keeps class-0x08 functions")
class HwlocDataDirectIT {

  private static final String DATA_DIRECT =
      "<object type=\"PCIDev\" gp_index=\"900\" pci_busid=\"0000:05:00.0\""
          + " pci_type=\"0801 [15b3:2100] [15b3:0000] 00\" pci_link_speed=\"0.000000\"/>";

  @Test
  @DisplayName("a 15b3:2100 function below a GPU's switch survives libhwloc's load and export")
  void dataDirectFunctionIsKept() throws IOException {
    String xml =
        Files.readString(Topologies.path("penguin-relion-x1904gt-p100x2.xml"))
            .replace(
                "<object type=\"Bridge\" gp_index=\"230\"",
                "<object type=\"Bridge\" gp_index=\"901\" bridge_type=\"1-1\" depth=\"3\""
                    + " bridge_pci=\"0000:[05-05]\" pci_busid=\"0000:03:05.0\""
                    + " pci_type=\"0604 [10b5:8796] [10b5:8796] ab\" pci_link_speed=\"0.000000\">"
                    + DATA_DIRECT
                    + "</object><object type=\"Bridge\" gp_index=\"230\"");
    assertTrue(xml.contains(DATA_DIRECT), "the fixture changed: the function was not inserted");

    String exported =
        new Hwloc().exportDocument(xml.getBytes(StandardCharsets.UTF_8), "relion + Data Direct");

    assertTrue(exported.contains("pci_busid=\"0000:05:00.0\""), "the function is gone");
    assertTrue(exported.contains("0801 [15b3:2100]"), "its class and ids are gone");
    List<String> notes = HwlocXmlReader.read(exported, "relion", "hwloc", "export").notes();
    assertTrue(
        notes.contains(
            "hwloc: Data Direct functions (15b3:2100) [0000:05:00.0]: hwloc's tree does not say"
                + " which NIC each serves, so the NICs stay at their own PCI address (live"
                + " discovery reads sysfs when libmlx5 ties them)"),
        notes.toString());
  }
}
