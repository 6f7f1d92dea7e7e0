package dev.tandem.api.crd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class NodeTopologyCrdSchemaTest {

  private final CustomResourceDefinition crd = CrdFile.read();
  private final CustomResourceDefinitionVersion version = crd.getSpec().getVersions().get(0);
  private final JSONSchemaProps root = version.getSchema().getOpenAPIV3Schema();

  @Test
  @DisplayName("names, group, version and scope in the YAML match the annotations on NodeTopology")
  void identity() {
    assertEquals(NodeTopology.CRD_NAME, crd.getMetadata().getName());
    assertEquals(HasMetadata.getFullResourceName(NodeTopology.class), crd.getMetadata().getName());
    assertEquals(NodeTopology.GROUP, crd.getSpec().getGroup());
    assertEquals(NodeTopology.VERSION, version.getName());
    assertEquals("Cluster", crd.getSpec().getScope());
    assertEquals("NodeTopology", crd.getSpec().getNames().getKind());
    assertEquals("nodetopologies", crd.getSpec().getNames().getPlural());
    assertEquals("nodetopology", crd.getSpec().getNames().getSingular());
    assertEquals(List.of("ntopo"), crd.getSpec().getNames().getShortNames());
    assertTrue(version.getServed() && version.getStorage());
    assertTrue(version.getSubresources().getStatus() != null, "status subresource");
  }

  @Test
  @DisplayName(
      "every Java property is in the schema with its type, and every schema property is in Java")
  void schemaMatchesJavaTypes() {
    List<String> problems = new ArrayList<>();
    compare("spec", NodeTopologySpec.class, root.getProperties().get("spec"), problems);
    compare("status", NodeTopologyStatus.class, root.getProperties().get("status"), problems);
    assertEquals(List.of(), problems);
  }

  @Test
  @DisplayName("printer columns show GPUs, HCAs, switches, source and age from existing fields")
  void printerColumns() {
    Map<String, String> columns = new TreeMap<>();
    version.getAdditionalPrinterColumns().forEach(c -> columns.put(c.getName(), c.getJsonPath()));
    assertEquals(
        Map.of(
            "GPUs",
            ".spec.summary.gpus",
            "HCAs",
            ".spec.summary.hcas",
            "Switches",
            ".spec.summary.switches",
            "Source",
            ".spec.source",
            "Age",
            ".metadata.creationTimestamp"),
        columns);
    NodeTopologySpec.Summary s = new NodeTopologySpec.Summary(1, 2, 3);
    assertEquals(3, s.switches());
  }

  @Test
  @DisplayName("the schema is structural: every object and array says what it holds")
  void structural() {
    List<String> problems = new ArrayList<>();
    checkStructural("", root, problems);
    assertEquals(List.of(), problems);
  }

  private static void compare(
      String path, Type type, JSONSchemaProps schema, List<String> problems) {
    if (schema == null) {
      problems.add(path + ": in Java (" + type.getTypeName() + "), missing from the schema");
      return;
    }
    String expected = schemaType(type);
    if (!expected.equals(schema.getType())) {
      problems.add(
          path
              + ": Java "
              + type.getTypeName()
              + " is "
              + expected
              + ", schema says "
              + schema.getType());
      return;
    }
    if (expected.equals("array")) {
      Type item = ((ParameterizedType) type).getActualTypeArguments()[0];
      compare(
          path + "[]",
          item,
          schema.getItems() == null ? null : schema.getItems().getSchema(),
          problems);
    } else if (expected.equals("object")) {
      compareObject(path, (Class<?>) type, schema, problems);
    }
  }

  private static void compareObject(
      String path, Class<?> type, JSONSchemaProps schema, List<String> problems) {
    Map<String, JSONSchemaProps> props =
        schema.getProperties() == null ? Map.of() : schema.getProperties();
    TreeSet<String> seen = new TreeSet<>();
    for (RecordComponent rc : type.getRecordComponents()) {
      JsonProperty renamed = rc.getAccessor().getAnnotation(JsonProperty.class);
      String name = renamed != null ? renamed.value() : rc.getName();
      seen.add(name);
      compare(path + "." + name, rc.getGenericType(), props.get(name), problems);
    }
    for (String name : props.keySet()) {
      if (!seen.contains(name)) {
        problems.add(path + "." + name + ": in the schema, not in Java " + type.getSimpleName());
      }
    }
  }

  private static String schemaType(Type type) {
    if (type == String.class) {
      return "string";
    }
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      return "integer";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "boolean";
    }
    if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
      return "array";
    }
    if (type instanceof Class<?> c && c.isRecord()) {
      return "object";
    }
    throw new AssertionError(
        "no schema type for Java type " + type.getTypeName() + "; extend the test");
  }

  private static void checkStructural(String path, JSONSchemaProps s, List<String> problems) {
    if (s.getType() == null) {
      problems.add(path + ": no type");
    } else if (s.getType().equals("array")) {
      if (s.getItems() == null || s.getItems().getSchema() == null) {
        problems.add(path + ": array without items");
      } else {
        checkStructural(path + "[]", s.getItems().getSchema(), problems);
      }
    }
    if (s.getProperties() != null) {
      s.getProperties().forEach((k, v) -> checkStructural(path + "." + k, v, problems));
    }
  }
}
