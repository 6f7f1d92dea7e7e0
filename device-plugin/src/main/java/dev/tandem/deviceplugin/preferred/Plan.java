package dev.tandem.deviceplugin.preferred;

import java.time.Instant;
import java.util.List;

/**
 * The {@code tandem.dev/plan} pod annotation the scheduler extender writes on bind, e.g.
 * {@code {"node":"n1","gpus":["GPU-…"],"hcas":["mlx5_0"],"locality":"PIX",
 * "policy":"switch/required","plannedAt":"2026-11-22T03:00:00Z"}}.
 *
 * <p>This record and {@link PlanCodec} duplicate the extender's; they belong in a shared module.
 *
 * @param node the node the pod was bound to
 * @param gpus the planned GPU ids (UUIDs)
 * @param hcas the planned HCA ids as the allocator returns them (ibverbs names; in shared mode an
 *     HCA repeats once per slot)
 * @param locality the worst GPU↔HCA locality of the plan, e.g. {@code PIX}
 * @param policy the alignment policy, e.g. {@code switch/required}
 * @param plannedAt when the plan was made
 */
public record Plan(String node, List<String> gpus, List<String> hcas, String locality, String policy,
    Instant plannedAt) {

  public static final String ANNOTATION = "tandem.dev/plan";

  public Plan {
    gpus = List.copyOf(gpus);
    hcas = List.copyOf(hcas);
  }
}
