package dev.tandem.extender.verbs;

import dev.tandem.api.Annotations;
import dev.tandem.api.plan.PlanCodec;
import dev.tandem.extender.state.AssumedPlan;
import dev.tandem.extender.state.Assumption;
import dev.tandem.extender.state.Assumptions;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodSource;
import dev.tandem.extender.state.PodWriter;
import dev.tandem.extender.state.Readiness;
import dev.tandem.topology.allocation.Infeasible;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bind verb: recompute the plan on the chosen node and hold it as an assumed allocation, then
 * create the Binding, which carries {@code tandem.dev/plan} onto the pod in the same write. Any
 * failure releases the assumption. No lock is held across the API call: the assumption itself keeps
 * the devices. A node without a NodeTopology gets no plan: the pod is bound as it is unless it
 * {@linkplain PodRequest#needsTopology needs one}, and then refused.
 */
public final class BindVerb {

  private static final Logger LOG = LoggerFactory.getLogger(BindVerb.class);

  private final Readiness readiness;
  private final PodSource pods;
  private final Assumptions assumptions;
  private final PodWriter writer;
  private final PodRequests requests;
  private final Duration ttl;

  /**
   * @param readiness only the leader binds
   * @param pods where the pod of a bind is found
   * @param assumptions where the plan is held until the agent reports it
   * @param writer the API write: the Binding with the plan annotation
   * @param requests how a pod's request is read: resource names, default policy
   * @param ttl how long a plan is held without the agent's report
   */
  public BindVerb(
      Readiness readiness,
      PodSource pods,
      Assumptions assumptions,
      PodWriter writer,
      PodRequests requests,
      Duration ttl) {
    this.readiness = readiness;
    this.pods = pods;
    this.assumptions = assumptions;
    this.writer = writer;
    this.requests = requests;
    this.ttl = ttl;
  }

  /** Never fails: every problem becomes a {@link BindResult} with an error. */
  public Future<BindResult> bind(PodRef ref, String node) {
    if (!readiness.leader()) {
      return Future.succeededFuture(
          new BindResult(
              "not_leader",
              "this extender replica is not the leader; retry (the Service routes to the leader)"));
    }
    return pods.pod(ref)
        .map(requests::of)
        .compose(
            request -> place(request, ref, node),
            e -> Future.succeededFuture(new BindResult("unknown_pod", e.getMessage())))
        .recover(
            e ->
                Future.succeededFuture(
                    new BindResult(
                        "api_error",
                        "binding " + ref + " to " + node + " failed: " + e.getMessage())));
  }

  private Future<BindResult> place(PodRequest request, PodRef ref, String node) {
    if (request.problem() != null) {
      return Future.succeededFuture(new BindResult("invalid_policy", request.problem()));
    }
    if (!request.interested()) {
      return writer.bind(ref, node, Map.of()).map(v -> BindResult.ok("bound_without_plan"));
    }
    Optional<Assumption> result =
        assumptions.assume(
            node,
            ref,
            request.requestOn(node),
            ttl,
            (index, chosen) ->
                request.shares(requests.resources(), index, chosen.gpuIds(), chosen.hcaIds()));
    if (result.isEmpty()) {
      if (!request.needsTopology()) {
        LOG.debug("{} bound to {} without a plan: the node has no NodeTopology", ref, node);
        return writer.bind(ref, node, Map.of()).map(v -> BindResult.ok("bound_without_topology"));
      }
      return Future.succeededFuture(
          new BindResult(
              "unknown_node",
              "node "
                  + node
                  + " has no NodeTopology, so the required GPU+HCA alignment of "
                  + ref
                  + " cannot be planned there (is the tandem agent running on it?)"));
    }
    if (result.get().result() instanceof Infeasible no) {
      return Future.succeededFuture(
          new BindResult(
              "infeasible", "cannot place " + ref + " on " + node + " any more: " + no.reason()));
    }
    return write(ref, node, result.get().plan());
  }

  private Future<BindResult> write(PodRef ref, String node, AssumedPlan plan) {
    return writer
        .bind(ref, node, Map.of(Annotations.PLAN, PlanCodec.encode(plan.plan())))
        .map(
            v -> {
              LOG.debug(
                  "bound {} to {}: GPUs {} HCAs {} ({}), per container {}",
                  ref,
                  node,
                  plan.gpus(),
                  plan.hcas(),
                  plan.locality(),
                  plan.containers());
              return BindResult.ok("bound");
            })
        .recover(
            e -> {
              assumptions.release(ref.uid());
              LOG.info("bind of {} to {} failed, devices released: {}", ref, node, e.getMessage());
              return Future.succeededFuture(
                  new BindResult(
                      "api_error",
                      "binding "
                          + ref
                          + " to "
                          + node
                          + " failed, devices released: "
                          + e.getMessage()));
            });
  }
}
