package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Any body either decodes or is refused as a {@link BadRequest} (a 400); nothing else escapes. When
 * it decodes, the streaming decoder agrees with a JSON tree on the node names it read. Runs its
 * corpus in {@code mvn verify}; {@code benchmarks/run-fuzz} fuzzes it for longer.
 */
class ExtenderArgsFuzzTest {

  private static final ClusterState STATE =
      ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null).state();

  static {
    List.of(TestMachines.pixNode(), TestMachines.splitNode())
        .forEach(m -> STATE.putTopology(m, 1, List.of()));
  }

  @FuzzTest(maxDuration = "60s")
  void decodeRefusesOrAgreesWithTheTree(byte[] body) {
    ExtenderArgs args;
    try {
      args = ExtenderArgs.decode(Buffer.buffer(body), STATE.directory());
    } catch (BadRequest e) {
      return;
    }
    JsonObject tree;
    try {
      tree = new JsonObject(Buffer.buffer(body));
    } catch (DecodeException e) {
      return; // bytes the decoder skips unread (an unknown key's) need not be valid UTF-8
    }
    JsonArray names = tree.getJsonArray("NodeNames");
    if (names != null) {
      assertEquals(names.getList(), names(args.candidates()));
    }
  }

  private static List<String> names(CandidateNodes c) {
    return IntStream.range(0, c.size()).mapToObj(c::name).toList();
  }
}
