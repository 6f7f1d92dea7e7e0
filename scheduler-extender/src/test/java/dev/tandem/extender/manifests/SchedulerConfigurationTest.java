package dev.tandem.extender.manifests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.extender.config.ExtenderConfig;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The kube-scheduler extender entries (KubeSchedulerConfiguration is no fabric8 type: Jackson
 * YAML), against shared/PROTOCOLS.md §2 and against what the extender serves.
 */
class SchedulerConfigurationTest {

  /** PROTOCOLS.md §2: the JSON keys of k8s.io/kube-scheduler/config/v1 Extender. */
  static final Set<String> EXTENDER_KEYS =
      Set.of(
          "urlPrefix",
          "filterVerb",
          "preemptVerb",
          "prioritizeVerb",
          "weight",
          "bindVerb",
          "enableHTTPS",
          "tlsConfig",
          "httpTimeout",
          "nodeCacheCapable",
          "managedResources",
          "ignorable");

  static final Set<String> MANAGED_RESOURCE_KEYS = Set.of("name", "ignoredByScheduler");

  static final String SECOND = "scheduler/second-scheduler/kube-scheduler-config.yaml";
  static final String PATCH = "scheduler/default-scheduler-patch/extender.yaml";

  @Test
  @DisplayName(
      "both extender entries use only the field names of PROTOCOLS.md §2, with the verbs, flags and resources Tandem needs")
  void entriesUseProtocolFieldNames() {
    for (String file : List.of(SECOND, PATCH)) {
      JsonNode config = ManifestFiles.single(file).node();
      assertEquals("kubescheduler.config.k8s.io/v1", config.path("apiVersion").asText(), file);
      assertEquals("KubeSchedulerConfiguration", config.path("kind").asText(), file);
      assertEquals(1, config.path("extenders").size(), file + ": one extender");
      JsonNode e = config.path("extenders").get(0);
      Set<String> keys = new TreeSet<>();
      e.fieldNames().forEachRemaining(keys::add);
      assertTrue(EXTENDER_KEYS.containsAll(keys), file + ": unknown extender keys in " + keys);
      e.path("managedResources")
          .forEach(
              r ->
                  r.fieldNames()
                      .forEachRemaining(
                          k ->
                              assertTrue(
                                  MANAGED_RESOURCE_KEYS.contains(k),
                                  file + ": unknown managedResources key " + k)));
      assertEquals("filter", e.path("filterVerb").asText(), file);
      assertEquals("prioritize", e.path("prioritizeVerb").asText(), file);
      assertEquals("bind", e.path("bindVerb").asText(), file);
      assertEquals("preempt", e.path("preemptVerb").asText(), file);
      assertTrue(
          e.path("weight").isIntegralNumber() && e.path("weight").asLong() > 0,
          file + ": weight must be a positive integer when prioritizeVerb is set");
      assertTrue(e.path("nodeCacheCapable").asBoolean(), file + ": nodeCacheCapable");
      assertTrue(
          e.path("ignorable").isBoolean() && !e.path("ignorable").asBoolean(),
          file + ": ignorable false");
      assertTrue(
          e.path("httpTimeout").asText().matches("\\d+(ms|s|m)"),
          file + ": httpTimeout a Go duration");
      List<String> names = new ArrayList<>();
      e.path("managedResources").forEach(r -> names.add(r.path("name").asText()));
      assertEquals(List.of("nvidia.com/gpu", "rdma/hca"), names, file);
    }
  }

  @Test
  @DisplayName("the two wirings carry the same extender entry, only the address differs")
  void sameEntryBothWays() {
    ObjectNode second =
        (ObjectNode) ManifestFiles.single(SECOND).node().path("extenders").get(0).deepCopy();
    ObjectNode patch =
        (ObjectNode) ManifestFiles.single(PATCH).node().path("extenders").get(0).deepCopy();
    second.remove("urlPrefix");
    patch.remove("urlPrefix");
    // the client certificate's files: a Secret volume in the pod, a host directory on the node
    for (ObjectNode entry : List.of(second, patch)) {
      for (String file : List.of("certFile", "keyFile", "caFile")) {
        ((ObjectNode) entry.path("tlsConfig")).remove(file);
      }
    }
    assertEquals(second, patch);
  }

  @Test
  @DisplayName(
      "urlPrefix port and path are the ones the extender listens on, given its Deployment's args")
  void urlPrefixMatchesTheExtender() {
    ExtenderConfig served = ExtenderDeployment.configWithoutCertificates();
    assertTrue(
        ExtenderDeployment.container().getArgs().contains("--client-ca=/etc/tandem/tls/ca.crt"),
        "the shipped extender requires client certificates");
    assertEquals(
        ExtenderConfig.DEFAULT_PORT,
        served.port(),
        "the Deployment keeps the extender's default port");
    for (String file : List.of(SECOND, PATCH)) {
      URI url =
          URI.create(
              ManifestFiles.single(file)
                  .node()
                  .path("extenders")
                  .get(0)
                  .path("urlPrefix")
                  .asText());
      assertEquals("https", url.getScheme(), file + ": the verbs are served over mutual TLS");
      assertEquals(served.port(), url.getPort(), file + ": port");
      assertEquals(served.prefix(), url.getPath(), file + ": path = the extender's --prefix");
      assertEquals(
          ExtenderDeployment.service().getSpec().getPorts().get(0).getPort(),
          url.getPort(),
          file + ": Service port");
    }
    URI second =
        URI.create(
            ManifestFiles.single(SECOND)
                .node()
                .path("extenders")
                .get(0)
                .path("urlPrefix")
                .asText());
    assertEquals("tandem-scheduler-extender.tandem-system.svc", second.getHost());
  }

  @Test
  @DisplayName("the extender's Lease (from its args) is the one its Role lets it update")
  void leaseMatchesRole() {
    ExtenderConfig served = ExtenderDeployment.configWithoutCertificates();
    assertTrue(
        ExtenderDeployment.container().getArgs().contains("--client-ca=/etc/tandem/tls/ca.crt"),
        "the shipped extender requires client certificates");
    assertEquals("tandem-system", served.leaseNamespace());
    JsonNode role =
        ManifestFiles.documents(ManifestFiles.ROOT.resolve("base/rbac-scheduler-extender.yaml"))
            .stream()
            .filter(d -> d.kind().equals("Role"))
            .findFirst()
            .orElseThrow()
            .node();
    assertEquals(served.leaseNamespace(), role.path("metadata").path("namespace").asText());
    assertEquals(
        served.leaseName(), role.path("rules").get(1).path("resourceNames").get(0).asText());
  }
}
