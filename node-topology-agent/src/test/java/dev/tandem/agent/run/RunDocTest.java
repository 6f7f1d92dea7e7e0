package dev.tandem.agent.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("docs/configuration.md: the agent's run settings")
class RunDocTest {

  @Test
  @DisplayName(
      "the agent's run flags, environment variables and defaults are exactly those of 'run --help'")
  void agentRunSettings() throws IOException {
    String usage = RunArgs.usage();
    String config = Files.readString(Path.of("../docs/configuration.md"));
    String section = config.substring(config.indexOf("\n## node-topology-agent\n"));
    int next = section.indexOf("\n## ", 1);
    section = next < 0 ? section : section.substring(0, next);
    String run = section.substring(section.indexOf("`run` ("));
    Set<String> documented = new TreeSet<>();
    for (String line : run.split("\n")) {
      String[] cells = line.split("\\|");
      if (line.startsWith("| `--") && cells.length > 3) {
        String flag = cells[1].trim().replace("`", "");
        String env = cells[2].trim().replace("`", "");
        String dflt = cells[3].trim();
        documented.add(flag + " " + env);
        if (dflt.matches("`[^`]+`")) {
          assertTrue(
              usage.contains("[" + env + "]")
                  && usage.contains("(default " + dflt.replace("`", "") + ")"),
              flag + ": default " + dflt + " not in run --help");
        }
      }
    }
    Set<String> inUsage = new TreeSet<>();
    Matcher m = Pattern.compile("(?m)^\\s+(--[a-z-]+)\\s+\\[([A-Z_]+)\\]").matcher(usage);
    while (m.find()) {
      inUsage.add(m.group(1) + " " + m.group(2));
    }
    assertEquals(inUsage, documented);
  }
}
