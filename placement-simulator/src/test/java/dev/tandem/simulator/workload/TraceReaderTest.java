package dev.tandem.simulator.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
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

  private static final String GANG_HEADER =
      "arrival,gpus,hcas,duration,gang,gang-size,gang-rank,rail-alignment\n";

  private static String gangError(String rows) {
    return assertThrows(
            TraceException.class, () -> TraceReader.csv(GANG_HEADER + rows, "t.csv", EIGHT))
        .getMessage();
  }

  @Test
  @DisplayName("gang columns give each pod its gang; a row without them is a pod alone")
  void gangs() {
    List<PodSpec> pods =
        TraceReader.csv(
            GANG_HEADER + "0,4,4,60,job-a,2,1,required\n0,4,4,60,job-a,2,,required\n1,1,1,5,,,,\n",
            "t.csv",
            EIGHT);
    assertEquals(new GangMember("job-a", 2, 1, AlignmentMode.REQUIRED), pods.get(0).gang());
    assertEquals(new GangMember("job-a", 2, null, AlignmentMode.REQUIRED), pods.get(1).gang());
    assertNull(pods.get(2).gang());
    List<PodSpec> json =
        TraceReader.json(
            "[{\"arrival\":0,\"gpus\":4,\"hcas\":4,\"duration\":60,\"gang\":\"b\","
                + "\"gang-size\":3}]",
            "t.json",
            EIGHT);
    assertEquals(new GangMember("b", 3, null, AlignmentMode.PREFERRED), json.get(0).gang());
  }

  @Test
  @DisplayName("a trace without gang columns reads as before: no pod in a gang")
  void oldTraces() {
    assertTrue(
        TraceReader.csv("arrival,gpus,hcas,policy,duration\n0,1,1,,30\n", "t.csv", EIGHT).stream()
            .allMatch(p -> p.gang() == null));
  }

  @Test
  @DisplayName("bad gang fields are refused naming the line and the field")
  void badGangs() {
    assertEquals("t.csv:2: field 'gang-size': missing", gangError("0,1,1,5,a,,,\n"));
    assertEquals(
        "t.csv:2: field 'gang-size': 'four' is not a gang size (1 or more members)",
        gangError("0,1,1,5,a,four,,\n"));
    assertEquals(
        "t.csv:2: field 'gang-rank': 2 is not a rank of a gang of 2 (0 to 1)",
        gangError("0,1,1,5,a,2,2,\n"));
    assertEquals(
        "t.csv:2: field 'rail-alignment': 'strict' is not one of required, preferred",
        gangError("0,1,1,5,a,2,0,strict\n"));
    assertEquals(
        "t.csv:2: field 'gang-size': given without 'gang'; name the pod's gang, or leave gang-size"
            + " empty",
        gangError("0,1,1,5,,2,,\n"));
    assertEquals(
        "t.csv:3: field 'gang-size': 3 differs from the size 2 an earlier member of gang 'a' gives",
        gangError("0,1,1,5,a,2,,\n0,1,1,5,a,3,,\n"));
    assertEquals(
        "t.csv:4: field 'gang': gang 'a' of size 2 has more members than that",
        gangError("0,1,1,5,a,2,,\n0,1,1,5,a,2,,\n0,1,1,5,a,2,,\n"));
    assertEquals(
        "t.csv:3: field 'gang-rank': rank 0 of gang 'a' is given to two pods",
        gangError("0,1,1,5,a,2,0,\n0,1,1,5,a,2,0,\n"));
    assertEquals(
        "t.csv:3: field 'rail-alignment': required differs from an earlier member of gang 'a'",
        gangError("0,1,1,5,a,2,,\n0,1,1,5,a,2,,required\n"));
  }
}
