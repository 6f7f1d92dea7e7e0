package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.Http;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeDirectory;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "ExtenderArgs decoded as a stream: names resolved in place, every malformed body named")
class ExtenderArgsTest {

  private final ClusterState state =
      ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null).state();

  ExtenderArgsTest() {
    List.of(TestMachines.pixNode(), TestMachines.splitNode(), TestMachines.gpuOnly())
        .forEach(m -> state.putTopology(m, 1, List.of()));
  }

  private ExtenderArgs decode(String body) {
    return ExtenderArgs.decode(Buffer.buffer(body), state.directory());
  }

  private static List<String> names(CandidateNodes c) {
    return IntStream.range(0, c.size()).mapToObj(c::name).toList();
  }

  @Test
  @DisplayName(
      "kube-scheduler's filter body: the pod, and names known to the state resolved to their nodes")
  void golden() {
    ExtenderArgs args = decode(Http.golden("filter-names.json"));
    assertEquals("trainer-0", args.pod().getJsonObject("metadata").getString("name"));
    assertEquals(
        "2 GPUs & 2 HCAs <one switch>",
        args.pod().getJsonObject("metadata").getJsonObject("annotations").getString("description"),
        "Go's \\u0026 and \\u003c escapes decoded");
    assertNull(args.nodes(), "names mode");
    CandidateNodes c = args.candidates();
    assertEquals(List.of("pix-node", "split-node", "gpu-only", "unknown-node"), names(c));
    assertSame(state.node("pix-node"), c.cell(0).entry());
    assertSame(state.node("gpu-only"), c.cell(2).entry());
    assertNull(c.cell(3), "a node the state does not know");
    assertEquals(
        "pix-node".length() + "split-node".length() + "gpu-only".length() + "unknown-node".length(),
        c.nameChars());
  }

  @Test
  @DisplayName(
      "an escaped name resolves to the node it spells; a node added after the directory is found")
  void escapesAndLateNodes() {
    NodeDirectory before = state.directory();
    state.putTopology(
        TestMachines.machine("late-node", new TestMachines.Switch(0, 1, 1)), 1, List.of());
    CandidateNodes c =
        ExtenderArgs.decode(
                Buffer.buffer(
                    "{\"Pod\":{},\"Nodes\":null,\"NodeNames\":[\"pix\\u002dnode\",\"late-node\"]}"),
                before)
            .candidates();
    assertEquals(List.of("pix-node", "late-node"), names(c));
    assertSame(state.node("pix-node"), c.cell(0).entry());
    assertSame(state.node("late-node"), c.cell(1).entry());
  }

  @Test
  @DisplayName(
      "kube-scheduler's NodeList body (nodeCacheCapable: false): names from metadata.name, objects kept")
  void nodeList() {
    ExtenderArgs args = decode(Http.golden("filter-nodes.json"));
    assertEquals(args.candidates().size(), args.nodes().size());
    for (int i = 0; i < args.nodes().size(); i++) {
      assertEquals(
          args.nodes().get(i).getJsonObject("metadata").getString("name"),
          args.candidates().name(i));
    }
    assertTrue(args.candidates().size() > 0);
  }

  @Test
  @DisplayName("Nodes and NodeNames both null: no candidates; unknown fields are skipped")
  void noNodes() {
    ExtenderArgs args =
        decode(
            "{\"Pod\":{\"x\":[1,{\"y\":null}]},\"Extra\":{\"a\":[]},\"Nodes\":null,\"NodeNames\":null}");
    assertEquals(0, args.candidates().size());
    assertEquals(
        new JsonObject().put("x", new JsonArray().add(1).add(new JsonObject().putNull("y"))),
        args.pod(),
        "the pod object exactly, nested values included");
  }

  @Test
  @DisplayName("a UTF-8 byte order mark is read past; Nodes is checked only when NodeNames is null")
  void bomAndUnusedNodes() {
    byte[] json =
        "{\"Pod\":{\"a\":\"é\"},\"NodeNames\":[\"pix-node\"]}".getBytes(StandardCharsets.UTF_8);
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    ExtenderArgs args =
        ExtenderArgs.decode(Buffer.buffer(bom).appendBytes(json), state.directory());
    assertEquals("é", args.pod().getString("a"));
    assertEquals(List.of("pix-node"), names(args.candidates()));
    assertEquals(
        List.of("pix-node"),
        names(decode("{\"Pod\":{},\"Nodes\":[],\"NodeNames\":[\"pix-node\"]}").candidates()),
        "names mode: Nodes is not read, as kube-scheduler's own decoding would not");
  }

  @Test
  @DisplayName("a body in UTF-16 or UTF-32 is refused as not UTF-8 (not a server error)")
  void notUtf8() {
    for (Charset cs :
        List.of(
            StandardCharsets.UTF_16LE,
            StandardCharsets.UTF_16BE,
            StandardCharsets.UTF_16,
            Charset.forName("UTF-32"))) {
      Buffer body = Buffer.buffer(Http.golden("filter-names.json").getBytes(cs));
      BadRequest e =
          assertThrows(
              BadRequest.class, () -> ExtenderArgs.decode(body, state.directory()), cs.name());
      assertTrue(e.getMessage().contains("UTF-8"), cs + " -> " + e.getMessage());
    }
  }

  @Test
  @DisplayName("each malformed body is a BadRequest that says what is wrong")
  void malformed() {
    Map<String, String> cases =
        Map.ofEntries(
            Map.entry("", "empty body"),
            Map.entry("null", "got null"),
            Map.entry("[]", "not a JSON object but an array"),
            Map.entry("\"s\"", "not a JSON object but a string"),
            Map.entry("not json", "body is not a JSON object: Unrecognized token"),
            Map.entry("{\"Pod\":{}", "body is not a JSON object"),
            Map.entry("{\"Pod\":{}} {}", "data after the object's end"),
            Map.entry("{\"NodeNames\":[]}", "ExtenderArgs.Pod must be a v1.Pod object"),
            Map.entry("{\"Pod\":5,\"NodeNames\":[]}", "ExtenderArgs.Pod must be a v1.Pod object"),
            Map.entry(
                "{\"Pod\":{},\"NodeNames\":\"n1\"}",
                "NodeNames must be an array of strings or null"),
            Map.entry("{\"Pod\":{},\"NodeNames\":[\"n1\",2]}", "NodeNames[1] is not a string"),
            Map.entry("{\"Pod\":{},\"Nodes\":[]}", "Nodes must be a v1.NodeList object or null"),
            Map.entry("{\"Pod\":{},\"Nodes\":{\"items\":{}}}", "Nodes.items must be an array"),
            Map.entry(
                "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{}}]}}",
                "Nodes.items[0] has no metadata.name"));
    cases.forEach(
        (body, message) -> {
          BadRequest e = assertThrows(BadRequest.class, () -> decode(body), body);
          assertTrue(e.getMessage().contains(message), body + " -> " + e.getMessage());
        });
  }
}
