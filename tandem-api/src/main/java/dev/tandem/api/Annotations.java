package dev.tandem.api;

import dev.tandem.topology.policy.AlignmentPolicy;

/** The pod annotation keys Tandem reads and writes. */
public final class Annotations {

  /** The plan the extender writes on bind and the device plugin follows ({@code PlanCodec}). */
  public static final String PLAN = "tandem.dev/plan";

  /**
   * The worst GPU↔HCA locality a pod allows: {@code switch}, {@code root-complex}, {@code numa},
   * {@code none}.
   */
  public static final String ALIGNMENT = AlignmentPolicy.ALIGNMENT_ANNOTATION;

  /**
   * Whether the alignment is {@code required} (filters nodes) or {@code preferred} (scores only).
   */
  public static final String ALIGNMENT_MODE = AlignmentPolicy.MODE_ANNOTATION;

  private Annotations() {}
}
