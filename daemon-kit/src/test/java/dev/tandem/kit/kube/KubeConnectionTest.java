package dev.tandem.kit.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Kubernetes connection: which config, with which bounds")
class KubeConnectionTest {

  static final String KUBECONFIG =
      """
      apiVersion: v1
      kind: Config
      clusters: [{name: c, cluster: {server: "https://api.example:6443"}}]
      users: [{name: u, user: {token: t}}]
      contexts: [{name: x, context: {cluster: c, user: u, namespace: ns}}]
      current-context: x
      """;

  @TempDir Path home;

  @Test
  @DisplayName("a kubeconfig file sets the server; the bounds set timeout and retries")
  void kubeconfig() throws Exception {
    Path file = Files.writeString(home.resolve("kc"), KUBECONFIG);
    Config c = KubeConnection.of(file).bounded(Duration.ofSeconds(10), 1).config();
    assertEquals("https://api.example:6443/", c.getMasterUrl());
    assertEquals(10_000, c.getRequestTimeout());
    assertEquals(1, c.getRequestRetryBackoffLimit());
    assertEquals("kubeconfig " + file, KubeConnection.of(file).describe());
  }

  @Test
  @DisplayName(
      "find: the given file, else in-cluster, else ~/.kube/config when readable, else nothing")
  void find() throws Exception {
    Path given = home.resolve("given");
    assertEquals(Optional.of(KubeConnection.of(given)), KubeConnection.find(given, Map.of(), home));
    assertNull(
        KubeConnection.find(null, Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1"), home)
            .orElseThrow()
            .kubeconfig());
    assertTrue(KubeConnection.find(null, Map.of(), home).isEmpty());
    Path dflt = home.resolve(".kube/config");
    Files.createDirectories(dflt.getParent());
    Files.writeString(dflt, KUBECONFIG);
    assertEquals(Optional.of(KubeConnection.of(dflt)), KubeConnection.find(null, Map.of(), home));
  }
}
