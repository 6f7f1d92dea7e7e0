package dev.tandem.api.pod;

import dev.tandem.topology.policy.AlignmentMode;
import java.util.Objects;

/**
 * The gang a pod belongs to (docs/rails.md, "Gangs"): the pods of one distributed job that should
 * use the same rails, as {@link GangKeys} reads it from what the job's controller or scheduler put
 * on the pod. Two pods are in one gang when namespace and name are equal, whichever key the name
 * was read from (one pod may carry Tandem's annotation and a PodGroup label with one name, its
 * sibling only the label).
 *
 * @param namespace the pod's namespace
 * @param source where the name came from, one of {@link GangKeys}' {@code SOURCE_} constants
 * @param name the gang's name in that source (a PodGroup's, a JobSet's, an LWS group's)
 * @param rank the pod's index in the gang when its controller gives one, else null
 * @param railAlignment whether the gang's rails filter nodes ({@code required}) or score them
 *     ({@code preferred}), from {@code tandem.dev/rail-alignment}; null when the pod does not say
 */
public record Gang(
    String namespace, String source, String name, Integer rank, AlignmentMode railAlignment) {

  public Gang {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(name, "name");
  }

  /** The gang's identity: pods with one key are planned on one rail set. */
  public String key() {
    return namespace + "/" + name;
  }
}
