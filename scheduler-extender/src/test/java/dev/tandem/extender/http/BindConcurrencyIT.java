package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.Annotations;
import dev.tandem.extender.Extender;
import dev.tandem.extender.Listeners;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodWriter;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@DisplayName("hundreds of simultaneous binds on few nodes: no device is given twice")
@ExtendWith(VertxExtension.class)
class BindConcurrencyIT {

  private Vertx vertx;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  /** An API that answers after a random delay and refuses every 10th Binding. */
  private final class SlowApi implements PodWriter {
    final Map<String, String> plans = new ConcurrentHashMap<>();
    final Set<String> bound = ConcurrentHashMap.newKeySet();

    @Override
    public Future<Void> bind(PodRef pod, String node, Map<String, String> annotations) {
      if (pod.name().endsWith("0")) {
        return later(() -> {}).compose(v -> Future.failedFuture("conflict: pod already bound"));
      }
      return later(
          () -> {
            plans.put(pod.uid(), annotations.get(Annotations.PLAN));
            bound.add(pod.uid());
          });
    }

    private Future<Void> later(Runnable r) {
      Promise<Void> p = Promise.promise();
      vertx.setTimer(
          1 + ThreadLocalRandom.current().nextInt(5),
          id -> {
            r.run();
            p.complete();
          });
      return p.future();
    }
  }

  @Test
  @DisplayName(
      "400 binds of 1 GPU + 1 HCA on 3 nodes of 4 pairs: disjoint devices, failed binds released")
  void concurrentBinds() throws Exception {
    SlowApi api = new SlowApi();
    Map<String, JsonObject> pods = new ConcurrentHashMap<>();
    ClusterParts cluster =
        ClusterParts.empty(
            Clock.systemUTC(), ref -> Future.succeededFuture(pods.get(ref.uid())), api);
    ClusterState state = cluster.state();
    List<String> nodes = List.of("n0", "n1", "n2");
    for (String n : nodes) {
      state.putTopology(
          TestMachines.machine(n, new Switch(0, 2, 2), new Switch(1, 2, 2)), 1, List.of());
    }
    cluster.readiness().synced(true);
    cluster.readiness().leader(true);
    Listeners server =
        Extender.start(vertx, ExtenderConfig.defaults().onFreePorts(), cluster)
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    HttpClient client = vertx.createHttpClient(new PoolOptions().setHttp1MaxSize(64));

    List<Future<Buffer>> calls = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      String uid = "uid-" + i;
      pods.put(uid, pod("p" + i, uid));
      String body =
          new JsonObject()
              .put("PodName", "p" + i)
              .put("PodNamespace", "ml")
              .put("PodUID", uid)
              .put("Node", nodes.get(i % 3))
              .encode();
      calls.add(
          client
              .request(HttpMethod.POST, server.verbsPort(), "localhost", "/scheduler/bind")
              .compose(req -> req.send(body))
              .compose(
                  resp ->
                      resp.statusCode() == 200
                          ? resp.body()
                          : Future.failedFuture("HTTP " + resp.statusCode())));
    }
    int ok = 0;
    for (Future<Buffer> call : calls) {
      String error =
          new JsonObject(call.toCompletionStage().toCompletableFuture().get()).getString("Error");
      if (error.isEmpty()) {
        ok++;
      } else {
        assertTrue(error.contains("devices released") || error.contains("any more"), error);
      }
    }
    // closed only now: Vert.x closes the pool of a client that is garbage collected mid-flight
    client.close().toCompletionStage().toCompletableFuture().get();
    Set<String> taken = new HashSet<>();
    for (String uid : api.bound) {
      JsonObject plan = new JsonObject(api.plans.get(uid));
      for (String kind : List.of("gpus", "hcas")) {
        JsonArray ids = plan.getJsonArray(kind);
        assertEquals(1, ids.size());
        assertTrue(
            taken.add(plan.getString("node") + "/" + ids.getString(0)),
            "device given twice: " + plan.getString("node") + "/" + ids.getString(0));
      }
    }
    assertEquals(ok, api.bound.size());
    assertTrue(ok > 0 && ok <= 12, "binds that succeeded: " + ok);
    assertEquals(ok, cluster.assumptions().count(), "failed binds must release their assumption");
    assertTrue(
        api.plans.keySet().containsAll(api.bound),
        "every bound pod got the plan annotation with its Binding");
    assertTrue(api.plans.values().iterator().next().contains("\"policy\":\"switch/required\""));
  }

  private static JsonObject pod(String name, String uid) {
    return new JsonObject()
        .put("metadata", new JsonObject().put("name", name).put("namespace", "ml").put("uid", uid))
        .put(
            "spec",
            new JsonObject()
                .put(
                    "containers",
                    new JsonArray()
                        .add(
                            new JsonObject()
                                .put("name", "main")
                                .put(
                                    "resources",
                                    new JsonObject()
                                        .put(
                                            "limits",
                                            new JsonObject()
                                                .put("nvidia.com/gpu", "1")
                                                .put("rdma/hca", "1"))))));
  }
}
