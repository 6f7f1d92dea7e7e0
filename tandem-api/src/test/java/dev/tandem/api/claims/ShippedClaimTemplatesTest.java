package dev.tandem.api.claims;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ResourceClaimTemplates Tandem ships for common shapes are the generator's output, byte for
 * byte: the Helm chart's data ({@code charts/tandem/files/claim-templates.yaml}, which its {@code
 * claimTemplates} values render) and the kustomize examples ({@code
 * manifests/examples/dra-claims/claim-templates.yaml}). Run with {@code
 * -Dtandem.claims.regenerate=true} to write them again after a change of the generator.
 */
class ShippedClaimTemplatesTest {

  static final Path CHART_DATA = Path.of("../charts/tandem/files/claim-templates.yaml");
  static final Path KUSTOMIZE = Path.of("../manifests/examples/dra-claims/claim-templates.yaml");

  /** 1+1, 2+2, 4+4 and 8+8, each under every alignment and mode (none once: it has no mode). */
  static List<AllocationRequest> shipped() {
    List<AllocationRequest> out = new ArrayList<>();
    for (int n : new int[] {1, 2, 4, 8}) {
      for (Alignment a : Alignment.values()) {
        for (AlignmentMode m : AlignmentMode.values()) {
          if (a != Alignment.NONE || m == AlignmentMode.REQUIRED) {
            out.add(new AllocationRequest(n, n, new AlignmentPolicy(a, m)));
          }
        }
      }
    }
    return out;
  }

  private static final String HEADER =
      """
      # Written by tandem-api's ShippedClaimTemplatesTest from ClaimGenerator (`tandem claim`): do not
      # edit. After a change of the generator, rerun it with -Dtandem.claims.regenerate=true.
      """;

  @Test
  void chartDataIsTheGeneratorsOutput() throws IOException {
    Map<String, ResourceClaimTemplateSpec> specs = new LinkedHashMap<>();
    for (AllocationRequest r : shipped()) {
      specs.put(ClaimTemplates.defaultName(r), template(r).getSpec());
    }
    String text =
        HEADER
            + "# The chart's claimTemplates render these specs by name (docs/dra.md, \"Shipped claim"
            + " templates\").\n"
            + yaml(specs);
    check(CHART_DATA, text);
  }

  @Test
  void kustomizeExamplesAreTheGeneratorsOutput() throws IOException {
    StringBuilder text = new StringBuilder(HEADER);
    for (AllocationRequest r : shipped()) {
      text.append(yaml(template(r)));
    }
    check(KUSTOMIZE, text.toString());
  }

  @Test
  void namesSayShapeAlignmentAndMode() {
    List<String> names = shipped().stream().map(ClaimTemplates::defaultName).toList();
    assertEquals(28, names.stream().distinct().count(), names.toString());
    assertEquals(
        List.of(
            "tandem-1g1h-switch",
            "tandem-1g1h-switch-preferred",
            "tandem-1g1h-root-complex",
            "tandem-1g1h-root-complex-preferred",
            "tandem-1g1h-numa",
            "tandem-1g1h-numa-preferred",
            "tandem-1g1h-none"),
        names.subList(0, 7));
  }

  private static ResourceClaimTemplate template(AllocationRequest r) {
    return ClaimTemplates.template(ClaimTemplates.defaultName(r), null, ClaimGenerator.claim(r));
  }

  private static String yaml(Object o) {
    return new KubernetesSerialization().asYaml(o);
  }

  private static void check(Path file, String text) throws IOException {
    if (Boolean.getBoolean("tandem.claims.regenerate")) {
      Files.writeString(file, text);
    }
    assertEquals(
        text,
        Files.exists(file) ? Files.readString(file) : "",
        file + " differs from the generator's output: rerun with -Dtandem.claims.regenerate=true");
  }
}
