package dev.tandem.simulator;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.Topologies;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SimulateMainIT {

  @Test
  @DisplayName("--max-seconds stops the run, keeps what it has and says so")
  void timeLimit() {
    String out =
        SimulateMainRunner.output(
            "--cluster",
            Topologies.path("nccl-topo/azure-ndv5-h100.xml") + ":20",
            "--pods",
            "5000",
            "--max-seconds",
            "0.000001",
            "--quiet");
    assertTrue(out.contains("\"partial\" : true"), out);
    assertTrue(out.contains("stopped after"), out);
    assertTrue(out.contains("\"policy\" : \"joint\""), out);
  }

  @Test
  @DisplayName("a trace with a negative duration exits with the line and field named")
  void badTrace() throws Exception {
    Path trace = Files.createTempFile("trace", ".csv");
    Files.writeString(trace, "arrival,gpus,hcas,duration\n0,1,1,5\n1,1,1,-2\n");
    String out =
        SimulateMainRunner.output(
            "--cluster",
            Topologies.path("nccl-topo/azure-ndv5-h100.xml").toString(),
            "--trace",
            trace.toString(),
            "--quiet");
    assertTrue(out.contains(trace + ":3: field 'duration': -2 is negative"), out);
  }
}
