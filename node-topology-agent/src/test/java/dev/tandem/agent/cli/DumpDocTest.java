package dev.tandem.agent.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("docs/configuration.md: the agent's dump flags")
class DumpDocTest {

  @Test
  @DisplayName("the dump table is exactly the one rendered from the dump flags' declarations")
  void dumpTable() throws IOException {
    String doc = Files.readString(Path.of("../docs/configuration.md"));
    String table = DumpSettings.SETTINGS.markdownTable();
    assertTrue(
        doc.contains("\n\n" + table + "\n"),
        "docs/configuration.md, node-topology-agent, should carry exactly this dump table:\n"
            + table);
  }
}
