package dev.tandem.extender.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RecentPodsTest {

  private final List<String> asked = new ArrayList<>();
  private final PodSource api =
      new PodSource() {
        @Override
        public Future<JsonObject> pod(PodRef ref) {
          asked.add(ref.uid());
          return Future.succeededFuture(new JsonObject().put("from", "api"));
        }

        @Override
        public AssignedPod assigned(String uid) {
          return null;
        }
      };

  @Test
  @DisplayName("a bind reads the pod filter saw; once forgotten (bound), the API is asked instead")
  void forgottenPodsComeFromTheFallback() {
    RecentPods pods = new RecentPods(Duration.ofMinutes(10), 100, api);
    PodRef ref = new PodRef("ns", "p", "uid-1");
    pods.remember("uid-1", new JsonObject().put("from", "filter"));

    assertEquals("filter", pods.pod(ref).result().getString("from"));
    assertEquals(List.of(), asked);

    pods.forget("uid-1");
    assertEquals("api", pods.pod(ref).result().getString("from"));
    assertEquals(List.of("uid-1"), asked);
  }
}
