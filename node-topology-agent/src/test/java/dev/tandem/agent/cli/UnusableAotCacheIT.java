package dev.tandem.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.agent.AgentMain;
import dev.tandem.fixtures.Topologies;
import dev.tandem.fixtures.UnusableAotCache;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@DisplayName(
    "-XX:AOTCache naming a missing or garbage file (the DaemonSet's option, another image): the JVM"
        + " says so and the agent still discovers and prints its topology")
class UnusableAotCacheIT {

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @EnumSource(UnusableAotCache.class)
  void dumpsWithoutTheCache(UnusableAotCache cache) throws Exception {
    Path out = dir.resolve(cache + ".txt");
    Process agent =
        new ProcessBuilder(
                List.of(
                    ProcessHandle.current().info().command().orElse("java"),
                    cache.option(dir),
                    "-cp",
                    System.getProperty("java.class.path"),
                    AgentMain.class.getName(),
                    "dump",
                    "--hwloc-xml",
                    Topologies.path("dell-poweredge-xe8640-h100x4.xml").toString(),
                    "--node-name",
                    "n"))
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    assertTrue(agent.waitFor(60, TimeUnit.SECONDS), "dump did not exit");
    String text = Files.readString(out, StandardCharsets.UTF_8);
    assertEquals(0, agent.exitValue(), text);
    assertTrue(UnusableAotCache.warned(text) && text.contains("NodeTopology"), text);
  }
}
