package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.verbs.FilterVerdict;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the hot answers' JSON writer writes the same bytes as Jackson")
class JsonTextTest {

  private static final List<String> TRICKY =
      List.of(
          "",
          "node-1",
          "a\"b",
          "back\\slash",
          "tab\there",
          "line\nbreak\r\n",
          "\b\f\u0000\u0001\u001f\u007f",
          "GPU-… via mlx5_0",
          "ünïcödé ✓",
          "emoji 😀 pair",
          "slash / and <html> & 'quotes'");

  @Test
  @DisplayName("strings, plain and cached, are escaped as Jackson escapes them")
  void stringsAsJackson() throws IOException {
    for (String s : TRICKY) {
      assertEquals(
          jackson(s),
          new String(new JsonText(4).string(s).toBuffer().getBytes(), StandardCharsets.UTF_8),
          "string " + s);
      JsonText twice = new JsonText(4).cachedString(s).raw(',').cachedString(s);
      assertEquals(jackson(s) + "," + jackson(s), twice.toBuffer().toString(), "cached " + s);
    }
  }

  @Test
  @DisplayName("a HostPriorityList is the same bytes as Jackson's")
  void prioritiesAsJackson() throws IOException {
    List<String> hosts = List.of("n1", "n\"2", "ü3");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
      g.writeStartArray();
      int score = 0;
      for (String h : hosts) {
        g.writeStartObject();
        g.writeStringField("Host", h);
        g.writeNumberField("Score", score++ * 5);
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    assertEquals(
        out.toString(StandardCharsets.UTF_8),
        new Replies().priorities(candidates(hosts), new int[] {0, 5, 10}).toString());
    assertEquals("[]", new Replies().priorities(candidates(List.of()), new int[0]).toString());
  }

  @Test
  @DisplayName("an ExtenderFilterResult, names or Node objects, is the same bytes as Jackson's")
  void filterAsJackson() throws IOException {
    List<String> names = List.of("n1", "n\"2", "n3", "ü4");
    String reason = "best is NODE (GPU-… via mlx5_0)\n";
    FilterVerdict v =
        new FilterVerdict(
            new boolean[] {true, false, false, false},
            new String[] {
              null, "node has 1 free healthy HCA, pod needs 2", reason, new String(reason)
            },
            new boolean[] {false, false, true, true},
            new int[9]);
    assertEquals(
        jacksonFilter(names, null, v),
        new Replies()
            .filter(new ExtenderArgs(new JsonObject(), candidates(names), null), v)
            .toString());
    List<JsonObject> nodes =
        names.stream()
            .map(
                n ->
                    new JsonObject()
                        .put(
                            "metadata",
                            new JsonObject().put("name", n).put("labels", new JsonObject())))
            .toList();
    assertEquals(
        jacksonFilter(names, nodes, v),
        new Replies()
            .filter(new ExtenderArgs(new JsonObject(), candidates(names), nodes), v)
            .toString());
  }

  /**
   * The names resolved against a cluster that knows "n1" and "n3" (plain: copied from the
   * directory's bytes) and {@code n"2} (held, but escaped all the same), but not the others
   * (escaped from the strings as sent).
   */
  private static CandidateNodes candidates(List<String> names) {
    ClusterState state = ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null).state();
    for (String known : List.of("n1", "n\"2", "n3")) {
      state.putTopology(TestMachines.machine(known, new Switch(0, 1, 1)), 1, List.of());
    }
    return CandidateNodes.of(state.directory(), names);
  }

  /** The encoding the extender used before JsonText, written with Jackson's generator. */
  private static String jacksonFilter(List<String> names, List<JsonObject> nodes, FilterVerdict v)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
      g.writeStartObject();
      if (nodes == null) {
        g.writeNullField("Nodes");
        g.writeArrayFieldStart("NodeNames");
        for (int i = 0; i < names.size(); i++) {
          if (v.passed()[i]) {
            g.writeString(names.get(i));
          }
        }
        g.writeEndArray();
      } else {
        g.writeObjectFieldStart("Nodes");
        g.writeObjectFieldStart("metadata");
        g.writeEndObject();
        g.writeArrayFieldStart("items");
        for (int i = 0; i < nodes.size(); i++) {
          if (v.passed()[i]) {
            g.writeRawValue(nodes.get(i).encode());
          }
        }
        g.writeEndArray();
        g.writeEndObject();
        g.writeNullField("NodeNames");
      }
      reasons(g, "FailedNodes", names, v, false);
      reasons(g, "FailedAndUnresolvableNodes", names, v, true);
      g.writeStringField("Error", "");
      g.writeEndObject();
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** As the extender wrote them before: a LinkedHashMap per kind, in input order. */
  private static void reasons(
      JsonGenerator g, String field, List<String> names, FilterVerdict v, boolean unresolvable)
      throws IOException {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      if (v.reasons()[i] != null && v.unresolvable()[i] == unresolvable) {
        m.put(names.get(i), v.reasons()[i]);
      }
    }
    g.writeObjectFieldStart(field);
    for (Map.Entry<String, String> e : m.entrySet()) {
      g.writeStringField(e.getKey(), e.getValue());
    }
    g.writeEndObject();
  }

  private static String jackson(String s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
      g.writeString(s);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
