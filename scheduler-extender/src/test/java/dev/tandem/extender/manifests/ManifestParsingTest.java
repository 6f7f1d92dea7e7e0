package dev.tandem.extender.manifests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.extender.manifests.ManifestFiles.Document;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ManifestParsingTest {

  private static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();
  private static final Set<String> NOT_KUBERNETES_OBJECTS =
      Set.of("Kustomization", "KubeSchedulerConfiguration");

  /**
   * The Prometheus Operator's kinds (manifests/monitoring): fabric8's client has no model for them.
   * The end-to-end harness dry-runs them against stand-in CRDs; charts/check parses their rules.
   */
  private static final Set<String> PROMETHEUS_OPERATOR_KINDS =
      Set.of("ServiceMonitor", "PodMonitor", "PrometheusRule");

  @Test
  @DisplayName(
      "every Kubernetes object under manifests/ parses with fabric8 into its typed model class, with no unknown field")
  void everyObjectParsesIntoATypedClass() {
    List<Document> docs = ManifestFiles.allDocuments();
    assertTrue(
        docs.size() > 30, "only " + docs.size() + " documents found under " + ManifestFiles.ROOT);
    List<String> problems = new ArrayList<>();
    int typed = 0;
    for (Document d : docs) {
      if (NOT_KUBERNETES_OBJECTS.contains(d.kind())
          || PROMETHEUS_OPERATOR_KINDS.contains(d.kind())) {
        continue;
      }
      KubernetesResource r = FABRIC8.convertValue(d.node(), KubernetesResource.class);
      if (r instanceof GenericKubernetesResource || !(r instanceof HasMetadata)) {
        problems.add(d + ": fabric8 has no typed class for it");
        continue;
      }
      typed++;
      unknownFields(r, "", problems, d.toString(), new IdentityHashMap<>());
    }
    assertEquals(List.of(), problems);
    assertTrue(typed > 30, "typed objects: " + typed);
  }

  @Test
  @DisplayName("the typo detector sees a misspelt field (so the test above can fail)")
  void typoDetectorWorks() {
    JsonNode node = ManifestFiles.single("base/namespace.yaml").node().deepCopy();
    ((ObjectNode) node.get("metadata")).put("lables", "x");
    List<String> problems = new ArrayList<>();
    unknownFields(
        FABRIC8.convertValue(node, KubernetesResource.class),
        "",
        problems,
        "namespace",
        new IdentityHashMap<>());
    assertEquals(List.of("namespace: unknown field metadata.lables"), problems);
  }

  @Test
  @DisplayName(
      "every kustomization lists only files or directories that exist, and every manifest file is listed by one")
  void kustomizationsAreComplete() {
    Set<Path> listed = new HashSet<>();
    for (Path f : ManifestFiles.yamlFiles()) {
      if (!f.getFileName().toString().equals("kustomization.yaml")) {
        continue;
      }
      JsonNode k = ManifestFiles.documents(f).get(0).node();
      List<String> entries = new ArrayList<>();
      k.path("resources").forEach(n -> entries.add(n.asText()));
      k.path("patches").forEach(n -> entries.add(n.path("path").asText()));
      k.path("configMapGenerator")
          .forEach(g -> g.path("files").forEach(n -> entries.add(n.asText())));
      for (String e : entries) {
        Path p = f.getParent().resolve(e).normalize();
        assertTrue(Files.exists(p), f + " lists " + e + ", which does not exist");
        listed.add(p);
      }
    }
    for (Path f : ManifestFiles.yamlFiles()) {
      boolean isKustomization = f.getFileName().toString().equals("kustomization.yaml");
      boolean reached =
          listed.contains(f)
              || listed.stream().anyMatch(d -> Files.isDirectory(d) && f.getParent().equals(d));
      if (!isKustomization && !f.endsWith(Path.of("default-scheduler-patch", "extender.yaml"))) {
        assertTrue(reached, ManifestFiles.ROOT.relativize(f) + " is in no kustomization");
      }
    }
  }

  /** fabric8 keeps unknown JSON keys in additionalProperties: any non-empty one is a typo. */
  static void unknownFields(
      Object o, String path, List<String> problems, String where, Map<Object, Boolean> seen) {
    if (o == null || seen.put(o, true) != null) {
      return;
    }
    if (o instanceof Collection<?> c) {
      c.forEach(e -> unknownFields(e, path, problems, where, seen));
      return;
    }
    if (o instanceof Map<?, ?> m) {
      m.forEach((k, v) -> unknownFields(v, path + "." + k, problems, where, seen));
      return;
    }
    if (!o.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
      return;
    }
    for (Method g : o.getClass().getMethods()) {
      if (g.getParameterCount() != 0
          || !g.getName().startsWith("get")
          || g.getDeclaringClass() == Object.class) {
        continue;
      }
      Object v;
      try {
        v = g.invoke(o);
      } catch (ReflectiveOperationException e) {
        continue;
      }
      if (g.getName().equals("getAdditionalProperties") && v instanceof Map<?, ?> extra) {
        extra
            .keySet()
            .forEach(
                k ->
                    problems.add(
                        where
                            + ": unknown field "
                            + (path.isEmpty() ? "" : path.substring(1) + ".")
                            + k));
      } else {
        String field = Character.toLowerCase(g.getName().charAt(3)) + g.getName().substring(4);
        unknownFields(v, path + "." + field, problems, where, seen);
      }
    }
  }

  @Test
  @DisplayName(
      "the CRD in manifests/crd parses as a typed CustomResourceDefinition for nodetopologies.tandem.dev")
  void crdIsTyped() {
    Path crd = ManifestFiles.ROOT.resolve("crd/nodetopologies.tandem.dev.yaml");
    KubernetesResource r =
        FABRIC8.convertValue(ManifestFiles.documents(crd).get(0).node(), KubernetesResource.class);
    var typed = assertInstanceOf(CustomResourceDefinition.class, r);
    assertEquals("nodetopologies.tandem.dev", typed.getMetadata().getName());
    assertFalse(typed.getSpec().getVersions().isEmpty());
  }
}
