package dev.tandem.simulator.report;

import dev.tandem.simulator.engine.GangFigure;
import dev.tandem.simulator.engine.PolicyResult;
import dev.tandem.simulator.optimum.OptimumResult;
import java.util.List;
import java.util.Map;

/**
 * Everything a run found, as written to JSON and rendered to HTML.
 *
 * @param command the arguments that reproduce the run
 * @param cluster node count per topology
 * @param gpus GPUs in the cluster
 * @param hcas HCA units in the cluster
 * @param workload where the pods came from (trace file or generator settings)
 * @param pods pods in the trace
 * @param maxWaitSeconds how long a pod may wait (0: loss system)
 * @param results one per policy, in the order asked
 * @param optimum the optimum, or null when not asked
 * @param gangOptimum a lower bound of the gangs' cross-rail pairs ({@code CrossRailBound}), or null
 *     when the optimum was not asked or the trace has no gang
 * @param partial whether the run stopped before the end (time limit)
 * @param message what happened, in one sentence
 */
public record Report(
    String command,
    Map<String, Integer> cluster,
    int gpus,
    int hcas,
    String workload,
    int pods,
    double maxWaitSeconds,
    List<PolicyResult> results,
    OptimumResult optimum,
    GangFigure gangOptimum,
    boolean partial,
    String message) {}
