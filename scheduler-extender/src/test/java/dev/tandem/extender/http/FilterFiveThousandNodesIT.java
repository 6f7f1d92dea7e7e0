package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.Extender;
import dev.tandem.extender.Http;
import dev.tandem.extender.Listeners;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Filter of 5,000 nodes by name, repeated: the answers stay correct once the per-node answers are
 * cached. Speed is measured by the load harness ({@code benchmarks/run-extender-load}), not here.
 */
@DisplayName(
    "filter of 5,000 nodes by name answers every node, new pod shape or not, on the event loop")
@ExtendWith(VertxExtension.class)
class FilterFiveThousandNodesIT {

  @Test
  @DisplayName(
      "5,000 names, 20 sequential filters: every answer passes the same 2,500 nodes and fails the rest")
  void fiveThousandNodes(Vertx vertx) throws Exception {
    List<Machine> shapes =
        List.of(
            TestMachines.pixNode(),
            TestMachines.splitNode(),
            TestMachines.gpuOnly(),
            TestMachines.machine(
                "big",
                new Switch(0, 2, 2),
                new Switch(0, 2, 2),
                new Switch(1, 2, 2),
                new Switch(1, 2, 2)));
    List<Machine> machines = new ArrayList<>();
    JsonArray names = new JsonArray();
    for (int i = 0; i < 5000; i++) {
      Machine m = shapes.get(i % shapes.size());
      machines.add(new Machine("node-" + i, m.source(), m.pcie(), m.devices()));
      names.add("node-" + i);
    }
    ClusterParts cluster = DemoCluster.of(machines);
    Listeners server =
        Extender.start(vertx, ExtenderConfig.defaults().onFreePorts(), cluster)
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    JsonObject args = new JsonObject(Http.golden("filter-names.json"));
    String body = args.put("NodeNames", names).encode();
    Http http = new Http(server.verbsPort());
    for (int i = 0; i < 20; i++) {
      JsonObject reply = new JsonObject(http.post("/scheduler/filter", body).body());
      assertEquals(2500, reply.getJsonArray("NodeNames").size(), "passed nodes, call " + i);
      assertEquals(
          2500,
          reply.getJsonObject("FailedNodes").size()
              + reply.getJsonObject("FailedAndUnresolvableNodes").size(),
          "failed nodes, call " + i);
    }
    String metrics = new Http(server.inspectionPort()).get("/metrics").body();
    assertTrue(
        metrics.contains(
            "tandem_extender_decisions_total{thread=\"event_loop\",verb=\"filter\"} 20.0"),
        "whole GPUs and HCAs are judged from their counts, the first call too: all 20 decided on"
            + " the event loop\n"
            + metrics);
    assertTrue(
        metrics.contains("tandem_extender_decisions_total{thread=\"worker\",verb=\"filter\"} 0.0"),
        "no call handed to a worker\n" + metrics);
  }
}
