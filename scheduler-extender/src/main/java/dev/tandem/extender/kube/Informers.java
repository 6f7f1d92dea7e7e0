package dev.tandem.extender.kube;

import dev.tandem.api.Annotations;
import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.InvalidNodeTopologyException;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.plan.Plan;
import dev.tandem.api.plan.PlanCodec;
import dev.tandem.api.pod.DeviceQuantity;
import dev.tandem.api.pod.GangKeys;
import dev.tandem.api.pod.InvalidGang;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.AssumedPlan;
import dev.tandem.extender.state.Assumptions;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeClasses;
import dev.tandem.extender.state.PodRef;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informer handlers: they translate watch events into {@link ClusterState} changes, and plans
 * found on pods into {@link Assumptions}.
 */
final class Informers {

  private static final Logger LOG = LoggerFactory.getLogger(Informers.class);

  private Informers() {}

  static ResourceEventHandler<NodeTopology> topologies(
      ClusterState state, ExtenderMetrics metrics, ResourceNames resources) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(NodeTopology nt) {
        metrics.informerEvent("nodetopologies");
        try {
          state.putTopology(
              NodeTopologyMapper.toMachine(nt, state.sharing()),
              NodeTopologies.units(nt, resources),
              NodeTopologies.mig(nt),
              NodeTopologies.allocations(nt, resources));
        } catch (InvalidNodeTopologyException e) {
          LOG.warn(
              "ignoring NodeTopology {}: {} (fix or upgrade the agent on that node)",
              nt.getMetadata().getName(),
              e.getMessage());
        }
      }

      @Override
      public void onUpdate(NodeTopology old, NodeTopology nt) {
        if (changed(old, nt)) {
          onAdd(nt);
        }
      }

      @Override
      public void onDelete(NodeTopology nt, boolean unknownFinalState) {
        metrics.informerEvent("nodetopologies");
        state.removeTopology(nt.getMetadata().getName());
      }
    };
  }

  static ResourceEventHandler<Pod> pods(
      ClusterState state,
      Assumptions assumptions,
      ExtenderMetrics metrics,
      Duration ttl,
      GangRailAudit gangAudit) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod) {
        metrics.informerEvent("pods");
        String uid = pod.getMetadata().getUid();
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
          state.podGone(uid);
          gangAudit.gone(uid);
          return;
        }
        if (pod.getMetadata().getDeletionTimestamp() != null) {
          state.podTerminating(uid);
          return;
        }
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String plan = annotations == null ? null : annotations.get(Annotations.PLAN);
        if (plan != null && pod.getSpec() != null && pod.getSpec().getNodeName() != null) {
          restore(pod, plan);
        }
      }

      /**
       * An earlier leader's plan becomes an assumption until the agent reports the pod, and the pod
       * a member of its gang (how a gang's rails survive a restart).
       */
      private void restore(Pod pod, String plan) {
        PodRef ref =
            new PodRef(
                pod.getMetadata().getNamespace(),
                pod.getMetadata().getName(),
                pod.getMetadata().getUid());
        Plan decoded;
        try {
          decoded = PlanCodec.decode(plan);
          assumptions.restore(AssumedPlan.restored(ref, decoded, ttl));
        } catch (RuntimeException e) {
          LOG.debug("pod {} carries an unreadable {}: {}", ref, Annotations.PLAN, e.getMessage());
          return;
        }
        try {
          GangKeys.of(pod)
              .ifPresent(
                  g -> {
                    state.gangRails().placed(g.key(), ref, decoded.node(), decoded.hcas());
                    gangAudit.placed(g.key());
                  });
        } catch (InvalidGang e) {
          LOG.debug("pod {} is bound, its gang unreadable: {}", ref, e.getMessage());
        }
      }

      @Override
      public void onUpdate(Pod old, Pod pod) {
        if (changed(old, pod)) {
          onAdd(pod);
        }
      }

      @Override
      public void onDelete(Pod pod, boolean unknownFinalState) {
        metrics.informerEvent("pods");
        state.podGone(pod.getMetadata().getUid());
        gangAudit.gone(pod.getMetadata().getUid());
      }
    };
  }

  /**
   * Whether an update is a change rather than a resync: a resync hands over the cache's slim object
   * ({@link SlimStore}) twice, with the version the handler has already seen.
   */
  static boolean changed(HasMetadata old, HasMetadata now) {
    String version = now.getMetadata().getResourceVersion();
    return old != now
        && (version == null || !version.equals(old.getMetadata().getResourceVersion()));
  }

  /**
   * The node's advertised HCA capacity, read as every device count is ({@link DeviceQuantity}); 0
   * when absent or not a count.
   */
  static long hcaCapacity(Node node, String hcaResource) {
    Map<String, Quantity> capacity =
        node.getStatus() == null ? null : node.getStatus().getCapacity();
    Quantity q = capacity == null ? null : capacity.get(hcaResource);
    if (q == null) {
      return 0;
    }
    try {
      return DeviceQuantity.units(q);
    } catch (IllegalArgumentException e) {
      LOG.warn(
          "node {}: {} capacity: {}; counting one unit per HCA",
          node.getMetadata().getName(),
          hcaResource,
          e.getMessage());
      return 0;
    }
  }

  static ResourceEventHandler<Node> nodes(
      ClusterState state, NodeClasses classes, ExtenderMetrics metrics, ResourceNames resources) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Node node) {
        metrics.informerEvent("nodes");
        state.nodeObject(node.getMetadata().getName(), true);
        classes.labels(node.getMetadata().getName(), node.getMetadata().getLabels());
        state.hcaCapacity(node.getMetadata().getName(), hcaCapacity(node, resources.hca()));
      }

      @Override
      public void onUpdate(Node old, Node node) {
        if (changed(old, node)) {
          onAdd(node);
        }
      }

      @Override
      public void onDelete(Node node, boolean unknownFinalState) {
        metrics.informerEvent("nodes");
        state.nodeObject(node.getMetadata().getName(), false);
        classes.gone(node.getMetadata().getName());
        state.hcaCapacity(node.getMetadata().getName(), 0);
        state.removeTopology(node.getMetadata().getName());
      }
    };
  }
}
