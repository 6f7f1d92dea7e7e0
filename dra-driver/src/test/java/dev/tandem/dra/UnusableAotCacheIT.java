package dev.tandem.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dra.aot.DriverWorkload;
import dev.tandem.fixtures.UnusableAotCache;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@DisplayName(
    "-XX:AOTCache naming a missing or garbage file (the DaemonSet's option, another image): the JVM"
        + " says so and the driver still registers, publishes and prepares claims")
class UnusableAotCacheIT {

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @EnumSource(UnusableAotCache.class)
  void startsWithoutTheCache(UnusableAotCache cache) throws Exception {
    List<String> jvm = new ArrayList<>(DriverWorkload.daemonSetOptions());
    jvm.add(cache.option(dir));
    DriverWorkload.Figures f =
        DriverWorkload.run(
            jvm,
            List.of("-cp", System.getProperty("java.class.path"), DraDriverMain.class.getName()),
            dir,
            4);
    String log = Files.readString(dir.resolve("driver.log"), StandardCharsets.UTF_8);
    assertTrue(UnusableAotCache.warned(log), log);
    assertEquals(4, f.prepared(), log);
    assertTrue(f.devices() > 0, log);
  }
}
