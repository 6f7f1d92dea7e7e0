package dev.tandem.simulator.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.policy.Alignment;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TraceReaderTest {

  private static final NodeLimits EIGHT = new NodeLimits(8, 8);

  @Test
  @DisplayName("CSV and JSON traces give the same pods, sorted by arrival")
  void readsCsvAndJson() {
    List<PodSpec> csv =
        TraceReader.csv(
            "arrival,gpus,hcas,policy,duration\n10,2,2,switch,60\n0,1,1,,30\n", "t.csv", EIGHT);
    List<PodSpec> json =
        TraceReader.json(
            "[{\"arrival\":10,\"gpus\":2,\"hcas\":2,\"policy\":\"switch\",\"duration\":60},"
                + "{\"arrival\":0,\"gpus\":1,\"hcas\":1,\"duration\":30}]",
            "t.json",
            EIGHT);
    assertEquals(csv, json);
    assertEquals(0, csv.get(0).arrival());
    assertEquals("2+2", csv.get(1).shape());
    assertEquals(Alignment.SWITCH, csv.get(1).policy().alignment());
  }

  @Test
  @DisplayName("a negative duration is refused naming the line and the field")
  void negativeDuration() {
    TraceException e =
        assertThrows(
            TraceException.class,
            () ->
                TraceReader.csv(
                    "arrival,gpus,hcas,policy,duration\n0,1,1,switch,5\n3,1,1,switch,-5\n",
                    "t.csv",
                    EIGHT));
    assertEquals("t.csv:3: field 'duration': -5 is negative; give seconds above 0", e.getMessage());
  }

  @Test
  @DisplayName("in a JSON trace the line named is the bad field's, or its element's when missing")
  void jsonLines() {
    String trace =
        "[\n  {\"arrival\": 0, \"gpus\": 1, \"hcas\": 1, \"duration\": 5},\n  {\n"
            + "    \"arrival\": 3,\n    \"gpus\": 1,\n    \"hcas\": 1,\n"
            + "    \"duration\": -5\n  }\n]\n";
    assertEquals(
        "t.json:7: field 'duration': -5 is negative; give seconds above 0",
        assertThrows(TraceException.class, () -> TraceReader.json(trace, "t.json", EIGHT))
            .getMessage());
    assertEquals(
        "t.json:2: field 'hcas': missing",
        assertThrows(
                TraceException.class,
                () ->
                    TraceReader.json(
                        "[\n {\"arrival\": 0, \"gpus\": 1, \"duration\": 5}]", "t.json", EIGHT))
            .getMessage());
    assertTrue(
        assertThrows(
                TraceException.class,
                () -> TraceReader.json("[\n {\"arrival\": 0,,}]", "t.json", EIGHT))
            .getMessage()
            .startsWith("t.json:2:16: not JSON: "));
  }

  @Test
  @DisplayName("a shape no node can hold, or 0+0, is refused as an unknown shape")
  void unknownShape() {
    TraceException tooBig =
        assertThrows(
            TraceException.class,
            () -> TraceReader.csv("arrival,gpus,hcas,duration\n0,16,1,5\n", "t.csv", EIGHT));
    assertTrue(tooBig.getMessage().startsWith("t.csv:2: field 'gpus': unknown shape 16+1"));
    TraceException empty =
        assertThrows(
            TraceException.class,
            () ->
                TraceReader.json(
                    "[{\"arrival\":0,\"gpus\":0,\"hcas\":0,\"duration\":1}]", "t.json", EIGHT));
    assertTrue(empty.getMessage().startsWith("t.json:1: field 'gpus': unknown shape 0+0"));
  }

  @Test
  @DisplayName("a field that does not parse is named with its line")
  void badFields() {
    assertEquals(
        "t.csv:2: field 'hcas': 'two' is not a device count (0 or more)",
        assertThrows(
                TraceException.class,
                () -> TraceReader.csv("arrival,gpus,hcas,duration\n0,1,two,5\n", "t.csv", EIGHT))
            .getMessage());
    assertTrue(
        assertThrows(
                TraceException.class,
                () ->
                    TraceReader.csv(
                        "arrival,gpus,hcas,policy,duration\n0,1,1,pcie,5\n", "t.csv", EIGHT))
            .getMessage()
            .startsWith("t.csv:2: field 'policy': "));
    assertEquals(
        "t.csv:1: field 'duration': missing from the header arrival,gpus,hcas",
        assertThrows(
                TraceException.class,
                () -> TraceReader.csv("arrival,gpus,hcas\n0,1,1\n", "t.csv", EIGHT))
            .getMessage());
  }
}
