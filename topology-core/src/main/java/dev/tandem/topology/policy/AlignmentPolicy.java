package dev.tandem.topology.policy;

import dev.tandem.topology.model.Locality;
import java.util.Map;

/**
 * A pod's alignment policy, from its annotations with defaults from configuration.
 *
 * @param alignment the worst locality allowed between a GPU and its HCA
 * @param mode required (filters) or preferred (scores only)
 */
public record AlignmentPolicy(Alignment alignment, AlignmentMode mode) {

  public static final String ALIGNMENT_ANNOTATION = "tandem.dev/alignment";
  public static final String MODE_ANNOTATION = "tandem.dev/alignment-mode";

  /** {@code switch}, {@code required}: the default for pods that request both resources. */
  public static final AlignmentPolicy DEFAULT =
      new AlignmentPolicy(Alignment.SWITCH, AlignmentMode.REQUIRED);

  public AlignmentPolicy {
    if (alignment == null || mode == null) {
      throw new IllegalArgumentException("alignment and mode are both required");
    }
  }

  /**
   * Reads {@code tandem.dev/alignment} and {@code tandem.dev/alignment-mode}; a missing annotation
   * takes the default's value.
   *
   * @throws InvalidPolicyException naming the annotation, the bad value and the allowed ones
   */
  public static AlignmentPolicy fromAnnotations(
      Map<String, String> annotations, AlignmentPolicy defaults) {
    Map<String, String> a = annotations == null ? Map.of() : annotations;
    String alignment = a.get(ALIGNMENT_ANNOTATION);
    String mode = a.get(MODE_ANNOTATION);
    return new AlignmentPolicy(
        alignment == null ? defaults.alignment() : Alignment.parse(alignment.trim()),
        mode == null ? defaults.mode() : AlignmentMode.parse(mode.trim()));
  }

  /**
   * Reads the form {@link #toString} writes ({@code switch/required}, as a plan records it); a
   * missing mode is {@code required}.
   *
   * @throws InvalidPolicyException naming the bad value and the allowed ones
   */
  public static AlignmentPolicy parse(String text) {
    String[] parts = text.trim().split("/", 2);
    return new AlignmentPolicy(
        Alignment.parse(parts[0].trim()),
        parts.length > 1 ? AlignmentMode.parse(parts[1].trim()) : AlignmentMode.REQUIRED);
  }

  /** The worst locality a node may offer and still pass the filter. */
  public Locality filterLimit() {
    return mode == AlignmentMode.REQUIRED ? alignment.worstAllowed() : Locality.SYS;
  }

  @Override
  public String toString() {
    return alignment.value() + "/" + mode.value();
  }
}
