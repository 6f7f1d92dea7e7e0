package dev.tandem.extender.verbs;

import dev.tandem.api.Annotations;
import dev.tandem.api.plan.PlanCodec;
import dev.tandem.extender.state.AssumedPlan;
import dev.tandem.extender.state.Assumption;
import dev.tandem.extender.state.Assumptions;
import dev.tandem.extender.state.GangRailBook;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodSource;
import dev.tandem.extender.state.PodWriter;
import dev.tandem.extender.state.Readiness;
import dev.tandem.topology.allocation.Infeasible;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
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
 * {@linkplain PodRequest#needsTopology needs one}, and then refused. A gang member is planned on
 * its gang's rails ({@link GangPlacement}) and holds them once planned.
 */
public final class BindVerb {

  private static final Logger LOG = LoggerFactory.getLogger(BindVerb.class);

  private final Readiness readiness;
  private final PodSource pods;
  private final Assumptions assumptions;
  private final PodWriter writer;
  private final PodRequests requests;
  private final Duration ttl;
  private final GangPlacement gangs;

  /** A bind whose gangs' rails are kept in no cluster's book ({@link GangRailBook#alone}). */
  public BindVerb(
      Readiness readiness,
      PodSource pods,
      Assumptions assumptions,
      PodWriter writer,
      PodRequests requests,
      Duration ttl) {
    this(readiness, pods, assumptions, writer, requests, ttl, GangRailBook.alone());
  }

  /**
   * @param readiness only the leader binds
   * @param pods where the pod of a bind is found
   * @param assumptions where the plan is held until the agent reports it
   * @param writer the API write: the Binding with the plan annotation
   * @param requests how a pod's request is read: resource names, default policy
   * @param ttl how long a plan is held without the agent's report
   * @param gangs the rails of each gang: a member is planned on them, and then holds them
   */
  public BindVerb(
      Readiness readiness,
      PodSource pods,
      Assumptions assumptions,
      PodWriter writer,
      PodRequests requests,
      Duration ttl,
      GangRailBook gangs) {
    this.readiness = readiness;
    this.pods = pods;
    this.assumptions = assumptions;
    this.writer = writer;
    this.requests = requests;
    this.ttl = ttl;
    this.gangs = new GangPlacement(gangs);
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

  /**
   * A bind as a standby rehearses it: the pod given (not fetched) is read, planned on the node and
   * its Binding prepared as {@link #bind} does, through the same code, while nothing is held and
   * nothing is sent ({@link Assumptions#plan}, {@link PodWriter#rehearse}). Leadership is not
   * asked: only a standby rehearses.
   *
   * @param pod a v1.Pod, as a bind would fetch it
   * @return whether the pod was planned on the node
   */
  public boolean rehearse(JsonObject pod, String node) {
    PodRequest request = requests.of(pod);
    if (!request.interested() || request.problem() != null || request.gang() != null) {
      return false;
    }
    PodRef ref = request.pod();
    Optional<Assumption> result =
        assumptions.plan(
            node, ref, request.requestOn(node), ttl, shares(request), Assumptions.Planner.PLAIN);
    if (result.isEmpty() || result.get().plan() == null) {
      return false;
    }
    writer.rehearse(ref, node, planAnnotation(result.get().plan()));
    return true;
  }

  /** How the pod's chosen devices are split between its containers. */
  private Assumptions.Shares shares(PodRequest request) {
    return (index, chosen) ->
        request.shares(requests.resources(), index, chosen.gpuIds(), chosen.hcaIds());
  }

  private static Map<String, String> planAnnotation(AssumedPlan plan) {
    return Map.of(Annotations.PLAN, PlanCodec.encode(plan.plan()));
  }

  private Future<BindResult> place(PodRequest request, PodRef ref, String node) {
    if (request.problem() != null) {
      return Future.succeededFuture(new BindResult("invalid_policy", request.problem()));
    }
    if (!request.interested()) {
      return writer.bind(ref, node, Map.of()).map(v -> BindResult.ok("bound_without_plan"));
    }
    GangPlacement.Planner gang = request.gang() == null ? null : gangs.planner(request);
    Optional<Assumption> result =
        assumptions.assume(
            node,
            ref,
            request.requestOn(node),
            ttl,
            shares(request),
            gang == null ? Assumptions.Planner.PLAIN : gang);
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
    AssumedPlan plan = result.get().plan();
    if (gang == null) {
      return write(ref, node, plan, "bound", () -> {});
    }
    gangs.placed(request, node, plan.hcas());
    return write(
        ref,
        node,
        plan,
        gang.offRails() ? "bound_off_gang_rails" : "bound",
        () -> gangs.unplaced(request));
  }

  /**
   * @param bound the result when written: {@code bound}, or {@code bound_off_gang_rails} for a
   *     {@code preferred} gang member planned off its gang's rails (a metric label)
   * @param undo what else a failed write releases
   */
  private Future<BindResult> write(
      PodRef ref, String node, AssumedPlan plan, String bound, Runnable undo) {
    return writer
        .bind(ref, node, planAnnotation(plan))
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
              return BindResult.ok(bound);
            })
        .recover(
            e -> {
              assumptions.release(ref.uid());
              undo.run();
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
