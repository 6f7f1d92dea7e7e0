package dev.tandem.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.DemoFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The extender's demo reads NodeTopology JSON, not hwloc XML (it carries no JNA): these files are
 * what {@code node-topology-agent dump} publishes for each bundled fixture, through libhwloc and
 * the NCCL reader. Run with {@code -Dtandem.demo.regenerate=true} to rewrite them after a discovery
 * or mapper change.
 */
@DisplayName("the extender's demo topologies are what the agent publishes for each bundled fixture")
class DemoTopologiesIT {

  static final Path DEMO = Path.of("../scheduler-extender/src/main/resources/demo");

  @Test
  @DisplayName(
      "demo/<fixture>.json equals 'dump --format json' of the fixture; index.txt lists them all")
  void demoFilesMatchDiscovery() throws IOException {
    boolean regenerate = Boolean.getBoolean("tandem.demo.regenerate");
    List<DemoFixture> fixtures = DemoFixture.ALL;
    String index = String.join("\n", fixtures.stream().map(DemoFixture::name).toList()) + "\n";
    if (regenerate) {
      Files.writeString(DEMO.resolve("index.txt"), index);
    }
    assertEquals(index, Files.readString(DEMO.resolve("index.txt")));
    for (DemoFixture f : fixtures) {
      Path source = f.path();
      DiscoveryOptions options =
          f.format() == DemoFixture.Format.HWLOC_XML
              ? DiscoveryOptions.hwlocXml(f.name(), source)
              : DiscoveryOptions.ncclTopo(f.name(), source);
      // notes name the file read: the fixture's name, not where this machine keeps it
      String json =
          DumpCommand.render(TopologySources.discoverOnce(options), "json")
              .replace(source.toString(), source.getFileName().toString());
      Path file = DEMO.resolve(f.name() + ".json");
      if (regenerate) {
        Files.writeString(file, json);
      }
      assertEquals(
          json, Files.readString(file), f.name() + ": rerun with -Dtandem.demo.regenerate=true");
    }
  }
}
