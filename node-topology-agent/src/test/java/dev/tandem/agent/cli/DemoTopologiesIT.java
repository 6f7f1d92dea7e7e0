package dev.tandem.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.discovery.DataDirectTies;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.discovery.sysfs.SysfsReader;
import dev.tandem.fixtures.DemoFixture;
import dev.tandem.fixtures.GraceTray;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The extender's demo reads NodeTopology JSON, not hwloc XML (it carries no JNA): these files are
 * what {@code node-topology-agent dump} publishes for each bundled fixture, through libhwloc and
 * the NCCL reader; for a Grace tray, what the agent publishes on such a node (its sysfs, with the
 * Data Direct ties libmlx5 reports there). Run with {@code -Dtandem.demo.regenerate=true} to
 * rewrite them after a discovery or mapper change.
 */
@DisplayName("the extender's demo topologies are what the agent publishes for each bundled fixture")
class DemoTopologiesIT {

  @TempDir Path trays;

  @Test
  @DisplayName(
      "demo/<fixture>.json equals 'dump --format json' of the fixture; index.txt lists them all")
  void demoFilesMatchDiscovery() throws IOException {
    boolean regenerate = Boolean.getBoolean("tandem.demo.regenerate");
    List<DemoFixture> fixtures = DemoFixture.ALL;
    String index = String.join("\n", fixtures.stream().map(DemoFixture::name).toList()) + "\n";
    if (regenerate) {
      Files.writeString(DemoFixture.PUBLISHED.resolve("index.txt"), index);
    }
    assertEquals(index, Files.readString(DemoFixture.PUBLISHED.resolve("index.txt")));
    for (DemoFixture f : fixtures) {
      String json = f.format() == DemoFixture.Format.GRACE_TRAY ? tray(f) : file(f);
      Path file = f.published();
      if (regenerate) {
        Files.writeString(file, json);
      }
      assertEquals(
          json, Files.readString(file), f.name() + ": rerun with -Dtandem.demo.regenerate=true");
    }
  }

  private static String file(DemoFixture f) {
    Path source = f.path();
    DiscoveryOptions options =
        f.format() == DemoFixture.Format.HWLOC_XML
            ? DiscoveryOptions.hwlocXml(f.name(), source)
            : DiscoveryOptions.ncclTopo(f.name(), source);
    // notes name the file read: the fixture's name, not where this machine keeps it
    return DumpCommand.render(TopologySources.discoverOnce(options), "json")
        .replace(source.toString(), source.getFileName().toString());
  }

  private String tray(DemoFixture f) throws IOException {
    GraceTray tray = f.tray();
    Path root = Files.createDirectories(trays.resolve(f.name()));
    tray.write(root);
    DataDirectTies ties = DataDirectTies.of(tray.dataDirect());
    // notes name paths under the host root: as the agent on the node prints them
    return DumpCommand.render(SysfsReader.read(root, f.name(), List.of(), ties), "json")
        .replace(root + "/", "/")
        .replace(root.toString(), "/");
  }
}
