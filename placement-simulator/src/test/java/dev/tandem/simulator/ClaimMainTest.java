package dev.tandem.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code tandem claim} through the jar's main entry, as {@code java -jar … claim} runs it. */
class ClaimMainTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return SimulateMain.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void printsTheTemplateAsYaml() {
    assertEquals(0, run("claim", "--gpus", "2", "--hcas", "2", "--namespace", "ml"));
    String yaml = out.toString(StandardCharsets.UTF_8);
    ResourceClaimTemplate t =
        new KubernetesSerialization().unmarshal(yaml, ResourceClaimTemplate.class);
    assertEquals("resource.k8s.io/v1", t.getApiVersion());
    assertEquals("tandem-2g2h-switch", t.getMetadata().getName());
    assertEquals("ml", t.getMetadata().getNamespace());
    assertEquals(4, t.getSpec().getSpec().getDevices().getRequests().size());
    assertEquals(
        "new",
        t.getSpec()
            .getSpec()
            .getDevices()
            .getRequests()
            .get(2)
            .getFirstAvailable()
            .get(1)
            .getName());
    assertEquals(3, t.getSpec().getSpec().getDevices().getConstraints().size());
  }

  @Test
  void preferredNamesAndAlignment() {
    assertEquals(
        0,
        run(
            "claim",
            "--gpus",
            "1",
            "--hcas",
            "2",
            "--alignment",
            "numa",
            "--mode",
            "preferred",
            "--name",
            "x"));
    String yaml = out.toString(StandardCharsets.UTF_8);
    assertTrue(yaml.contains("name: \"x\"") || yaml.contains("name: x"), yaml);
    assertTrue(yaml.contains("tandem.dev/cpuDomain"), yaml);
    assertTrue(yaml.contains("any"), yaml);
  }

  @Test
  void defaultNameSaysPreferred() {
    assertEquals(0, run("claim", "--gpus", "4", "--hcas", "4", "--mode", "preferred"));
    String yaml = out.toString(StandardCharsets.UTF_8);
    assertEquals(
        "tandem-4g4h-switch-preferred",
        new KubernetesSerialization()
            .unmarshal(yaml, ResourceClaimTemplate.class)
            .getMetadata()
            .getName());
  }

  @Test
  void refusesWhatNoClaimExpressesAndBadFlags() {
    assertEquals(1, run("claim", "--gpus", "9", "--hcas", "9"));
    assertTrue(
        err.toString(StandardCharsets.UTF_8).contains("nearest expressible: 8 GPUs + 9 HCAs"),
        err.toString(StandardCharsets.UTF_8));
    err.reset();
    assertEquals(2, run("claim", "--gpus", "2", "--hcas", "2", "--alignment", "rack"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--alignment"));
    err.reset();
    assertEquals(2, run("claim", "--gpus", "2"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--hcas"));
    assertEquals(0, run("claim", "--help"));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("usage: tandem claim"));
  }
}
