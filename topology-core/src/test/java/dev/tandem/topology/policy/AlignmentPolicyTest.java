package dev.tandem.topology.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.topology.model.Locality;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AlignmentPolicyTest {

  @ParameterizedTest(name = "{0} allows at worst {1}")
  @CsvSource({"switch,PXB", "root-complex,PHB", "numa,NODE", "none,SYS"})
  @DisplayName("each alignment value maps to the worst locality it allows")
  void alignmentLimits(String value, Locality worst) {
    AlignmentPolicy p =
        AlignmentPolicy.fromAnnotations(
            Map.of(AlignmentPolicy.ALIGNMENT_ANNOTATION, value), AlignmentPolicy.DEFAULT);
    assertEquals(worst, p.alignment().worstAllowed());
    assertEquals(worst, p.filterLimit());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"switch/required", "numa/preferred", "root-complex/required", "none/preferred"})
  @DisplayName("parse reads what toString writes, as a plan records it")
  void parseRoundTrip(String text) {
    assertEquals(text, AlignmentPolicy.parse(text).toString());
  }

  @Test
  @DisplayName("parse: a missing mode is required; a bad value names itself")
  void parseEdges() {
    assertEquals("numa/required", AlignmentPolicy.parse("numa").toString());
    InvalidPolicyException e =
        assertThrows(InvalidPolicyException.class, () -> AlignmentPolicy.parse("near/required"));
    assertEquals(true, e.getMessage().contains("near"), e.getMessage());
  }

  @Test
  @DisplayName("missing annotations take the configured defaults")
  void defaults() {
    assertEquals(
        AlignmentPolicy.DEFAULT,
        AlignmentPolicy.fromAnnotations(Map.of(), AlignmentPolicy.DEFAULT));
    assertEquals(
        AlignmentPolicy.DEFAULT, AlignmentPolicy.fromAnnotations(null, AlignmentPolicy.DEFAULT));
    AlignmentPolicy numaPreferred = new AlignmentPolicy(Alignment.NUMA, AlignmentMode.PREFERRED);
    assertEquals(
        numaPreferred, AlignmentPolicy.fromAnnotations(Map.of("other", "x"), numaPreferred));
  }

  @Test
  @DisplayName("preferred mode never filters: its filter limit is SYS")
  void preferredDoesNotFilter() {
    AlignmentPolicy p =
        AlignmentPolicy.fromAnnotations(
            Map.of(
                AlignmentPolicy.ALIGNMENT_ANNOTATION,
                "switch",
                AlignmentPolicy.MODE_ANNOTATION,
                "preferred"),
            AlignmentPolicy.DEFAULT);
    assertEquals(Locality.SYS, p.filterLimit());
    assertEquals(Locality.PXB, p.alignment().worstAllowed());
  }

  @Test
  @DisplayName(
      "unknown values are refused with a message naming the annotation and the allowed values")
  void unknownValues() {
    InvalidPolicyException bad =
        assertThrows(
            InvalidPolicyException.class,
            () ->
                AlignmentPolicy.fromAnnotations(
                    Map.of(AlignmentPolicy.ALIGNMENT_ANNOTATION, "same-switch"),
                    AlignmentPolicy.DEFAULT));
    assertEquals(
        "tandem.dev/alignment: unknown value 'same-switch'; allowed: switch, root-complex, numa, none",
        bad.getMessage());
    InvalidPolicyException mode =
        assertThrows(
            InvalidPolicyException.class,
            () ->
                AlignmentPolicy.fromAnnotations(
                    Map.of(AlignmentPolicy.MODE_ANNOTATION, "Required"), AlignmentPolicy.DEFAULT));
    assertEquals(
        "tandem.dev/alignment-mode: unknown value 'Required'; allowed: required, preferred",
        mode.getMessage());
  }
}
