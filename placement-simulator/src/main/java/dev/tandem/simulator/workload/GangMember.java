package dev.tandem.simulator.workload;

import dev.tandem.topology.policy.AlignmentMode;
import java.util.Objects;

/**
 * A pod's place in a gang (docs/rails.md, "Gangs"): the pods of one distributed job, which should
 * use one rail set. In a trace, the columns {@code gang}, {@code gang-size}, {@code gang-rank} and
 * {@code rail-alignment}, as the annotations {@code tandem.dev/gang}, {@code tandem.dev/gang-rank}
 * and {@code tandem.dev/rail-alignment} say it of a pod.
 *
 * @param name the gang's name; pods with one name are one gang
 * @param size how many members the gang has
 * @param rank the pod's index in the gang, 0..size-1, or null when the trace gives none
 * @param railAlignment whether the gang's rails filter nodes ({@code REQUIRED}) or rank them
 *     ({@code PREFERRED})
 */
public record GangMember(String name, int size, Integer rank, AlignmentMode railAlignment) {

  /**
   * Reads a rail alignment as {@code tandem.dev/rail-alignment} says it: {@code required} or {@code
   * preferred}; empty is {@code preferred}, as the extender takes a member that does not say.
   *
   * @throws IllegalArgumentException naming the value and the ones allowed
   */
  public static AlignmentMode railAlignment(String text) {
    return switch (text) {
      case "", "preferred" -> AlignmentMode.PREFERRED;
      case "required" -> AlignmentMode.REQUIRED;
      default ->
          throw new IllegalArgumentException("'" + text + "' is not one of required, preferred");
    };
  }

  public GangMember {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(railAlignment, "railAlignment");
    if (size < 1 || (rank != null && (rank < 0 || rank >= size))) {
      throw new IllegalArgumentException(
          "gang " + name + ": size " + size + " and rank " + rank + " do not fit");
    }
  }
}
