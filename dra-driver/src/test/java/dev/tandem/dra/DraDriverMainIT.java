package dev.tandem.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the dra-driver process: --help and exit code 2 naming a bad setting")
class DraDriverMainIT {

  record Exit(int code, String output) {}

  static Exit run(String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                DraDriverMain.class.getName()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().remove("NODE_NAME");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    return new Exit(p.exitValue(), out);
  }

  @Test
  @DisplayName("--help prints the usage with every flag and exits 0")
  void help() throws Exception {
    Exit e = run("--help");
    assertEquals(0, e.code(), e.output());
    assertTrue(e.output().contains("usage: java -jar dra-driver.jar"), e.output());
    assertTrue(e.output().contains("--plugin-registry-dir"), e.output());
  }

  @Test
  @DisplayName("a bad setting exits 2 naming it; so does a missing node name")
  void badSettings() throws Exception {
    Exit mode = run("--node-name=n1", "--mode=vf");
    assertEquals(2, mode.code(), mode.output());
    assertTrue(mode.output().contains("dra-driver: --mode"), mode.output());
    Exit shares = run("--node-name=n1", "--mode=shared", "--shares-per-hca=0");
    assertEquals(2, shares.code(), shares.output());
    assertTrue(shares.output().contains("dra-driver: --shares-per-hca"), shares.output());
    Exit node = run();
    assertEquals(2, node.code(), node.output());
    assertTrue(node.output().contains("--node-name"), node.output());
  }
}
