package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.PlacementPolicy;
import java.util.List;

/** The policies by name, in the order reports show them. */
public final class Policies {

  /** Every simulated policy name (the optimum is computed apart, under the name optimum). */
  public static final List<String> NAMES =
      List.of(
          "joint",
          "joint-binpack",
          "joint-smallest-first",
          "joint-no-gangs",
          "hint",
          "stock",
          "topology-manager",
          "dra",
          "dra-tandem-score",
          "dra-ext",
          "dra-ext-tandem-score");

  private Policies() {}

  /**
   * @throws IllegalArgumentException naming the unknown policy and the known ones
   */
  public static PlacementPolicy byName(String name) {
    return switch (name) {
      case "joint" -> new JointMode();
      case "joint-binpack" -> new JointMode(NodeRanking.SCORE_THEN_MOST_ALLOCATED);
      case "joint-smallest-first" -> new JointMode(NodeRanking.SMALLEST_NODE_FIRST);
      case "joint-no-gangs" -> JointMode.withoutGangs();
      case "hint" -> new HintMode();
      case "stock" -> new StockKubernetes();
      case "topology-manager" -> new TopologyManagerSingleNuma();
      case "dra" -> DraFirstFit.alone();
      case "dra-tandem-score" -> DraFirstFit.withTandemScore();
      case "dra-ext" -> DraFirstFit.extendedResources();
      case "dra-ext-tandem-score" -> DraFirstFit.extendedResourcesWithTandem();
      default ->
          throw new IllegalArgumentException(
              "unknown policy '" + name + "'; known: " + String.join(", ", NAMES) + ", optimum");
    };
  }
}
