package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.Extender;
import dev.tandem.extender.Http;
import dev.tandem.extender.Listeners;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The extender started as an operator starts it with another HCA resource name (the device plugin's
 * {@code "resourceName": "rdma/shared_hca"}), answering kube-scheduler's golden requests with the
 * names changed.
 */
@DisplayName("an extender configured with another HCA resource name reads that name from pods")
@ExtendWith(VertxExtension.class)
class ConfiguredResourceNamesIT {

  private static final String SHARED = "rdma/shared_hca";
  private static Http http;

  @BeforeAll
  static void start(Vertx vertx) throws Exception {
    ExtenderConfig config =
        ExtenderConfig.load(
                List.of(
                    "--hca-resource-name",
                    SHARED,
                    "--port",
                    "0",
                    "--inspection-port",
                    "0",
                    "--demo"),
                Map.of())
            .withBodyLimit(64 * 1024);
    Listeners server = Extender.start(vertx, config, DemoCluster.of(TestMachines.golden())).await();
    http = new Http(server.verbsPort());
  }

  /** The golden 2 GPU + 2 {@code rdma/hca} request, with {@code rdma/hca} renamed to {@code to}. */
  private static JsonObject filter(String to) {
    String golden = Http.golden("filter-names.json").replace("\"rdma/hca\"", "\"" + to + "\"");
    return new JsonObject(http.post("/scheduler/filter", golden).body());
  }

  @Test
  @DisplayName(
      "a pod asking 2 GPUs + 2 rdma/shared_hca is filtered for alignment: only the aligned node passes")
  void configuredName() {
    JsonObject r = filter(SHARED);
    assertEquals(new JsonArray().add("pix-node"), r.getJsonArray("NodeNames"));
    JsonObject refused = r.getJsonObject("FailedAndUnresolvableNodes");
    assertTrue(refused.getString("split-node").startsWith("2 GPUs + 2 HCAs need"), r.encode());
    assertEquals("node has no RDMA HCAs", refused.getString("gpu-only"));
  }

  @Test
  @DisplayName(
      "rdma/hca is not this extender's HCA resource: the pod counts as asking for GPUs only")
  void defaultNameIsNotGoverned() {
    JsonObject r = filter("rdma/hca");
    assertEquals(4, r.getJsonArray("NodeNames").size(), r.encode());
    assertTrue(r.getJsonObject("FailedAndUnresolvableNodes").isEmpty(), r.encode());
  }
}
