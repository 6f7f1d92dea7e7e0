package dev.tandem.agent.run;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("docs/configuration.md: the agent's run settings")
class RunDocTest {

  @Test
  @DisplayName("the run table is exactly the one rendered from the run settings' declarations")
  void runTable() throws IOException {
    String doc = Files.readString(Path.of("../docs/configuration.md"));
    String table = RunSettings.SETTINGS.markdownTable();
    assertTrue(
        doc.contains("\n\n" + table + "\n"),
        "docs/configuration.md, node-topology-agent, should carry exactly this run table:\n"
            + table);
  }
}
