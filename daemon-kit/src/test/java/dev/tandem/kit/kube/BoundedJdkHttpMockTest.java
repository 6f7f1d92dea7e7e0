package dev.tandem.kit.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@EnableKubernetesMockClient(crud = true, https = false)
@DisplayName("the daemons' API client runs its HTTP work on a bounded pool")
class BoundedJdkHttpMockTest {

  /** The threads of fabric8's JdkHttpClientFactory pool (a cached pool: one per task in flight). */
  private static final String FABRIC8_POOL = "JdkHttpClientFactory-";

  KubernetesMockServer server;

  @TempDir Path dir;

  @Test
  @DisplayName(
      "400 requests from 64 callers at once: answered, on at most HTTP_THREADS kube-http threads,"
          + " none of fabric8's unbounded pool")
  void boundedUnderABurst() throws Exception {
    Path kubeconfig =
        Files.writeString(
            dir.resolve("kubeconfig"),
            KubeConnectionTest.KUBECONFIG.replace(
                "https://api.example:6443", "http://localhost:" + server.getPort()));
    Set<String> seen = ConcurrentHashMap.newKeySet();
    ExecutorService callers = Executors.newFixedThreadPool(64);
    try (KubernetesClient client = KubeConnection.of(kubeconfig).client()) {
      client
          .configMaps()
          .inNamespace("ns")
          .resource(new ConfigMapBuilder().withNewMetadata().withName("cm").endMetadata().build())
          .create();
      List<CompletableFuture<String>> calls = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        calls.add(
            CompletableFuture.supplyAsync(
                () -> {
                  String name =
                      client
                          .configMaps()
                          .inNamespace("ns")
                          .withName("cm")
                          .get()
                          .getMetadata()
                          .getName();
                  liveHttpThreads(seen);
                  return name;
                },
                callers));
      }
      for (CompletableFuture<String> c : calls) {
        assertEquals("cm", c.get());
      }
    } finally {
      callers.shutdown();
    }
    Set<String> fabric8 =
        seen.stream().filter(n -> n.startsWith(FABRIC8_POOL)).collect(Collectors.toSet());
    assertEquals(
        Set.of(), fabric8, "fabric8's unbounded pool ran work on " + fabric8.size() + " threads");
    long ours = seen.stream().filter(n -> n.startsWith(BoundedJdkHttp.THREAD_PREFIX)).count();
    assertTrue(ours > 0, "no kube-http thread ran the client's HTTP work: " + seen);
    assertTrue(ours <= KubeConnection.HTTP_THREADS, "threads started: " + seen);
  }

  private static void liveHttpThreads(Set<String> seen) {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith(BoundedJdkHttp.THREAD_PREFIX)
          || t.getName().startsWith(FABRIC8_POOL)) {
        seen.add(t.getName());
      }
    }
  }
}
