package dev.tandem.extender.demo;

import dev.tandem.api.ResourceNames;
import dev.tandem.extender.state.AssumedPlan;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodWriter;
import dev.tandem.extender.state.ReportedAllocation;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The demo's API: annotations are accepted (nothing reads them back), and a bound pod's plan is
 * reported back as the node's allocation after a short delay, as the agent would once the kubelet
 * admitted the pod. Until then the plan shows as assumed.
 */
final class DemoWriter implements PodWriter {

  private final ScheduledExecutorService kubelet =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "demo-kubelet");
            t.setDaemon(true);
            return t;
          });
  private final long admitMillis;
  private volatile ClusterState state;

  DemoWriter(long admitMillis) {
    this.admitMillis = admitMillis;
  }

  void attach(ClusterState value) {
    this.state = value;
  }

  @Override
  public Future<Void> bind(PodRef pod, String node, Map<String, String> annotations) {
    kubelet.schedule(() -> admit(pod, node), admitMillis, TimeUnit.MILLISECONDS);
    return Future.succeededFuture();
  }

  private void admit(PodRef pod, String node) {
    NodeEntry entry = state.node(node);
    AssumedPlan plan = entry == null ? null : entry.assumed().get(pod.uid());
    if (plan == null) {
      return;
    }
    List<ReportedAllocation> allocations = new ArrayList<>(entry.allocations());
    if (!plan.gpus().isEmpty()) {
      allocations.add(
          new ReportedAllocation(
              pod.namespace(), pod.name(), pod.uid(), "main", ResourceNames.GPU, plan.gpus()));
    }
    if (!plan.hcas().isEmpty()) {
      allocations.add(
          new ReportedAllocation(
              pod.namespace(), pod.name(), pod.uid(), "main", ResourceNames.HCA, plan.hcas()));
    }
    state.putTopology(entry.machine(), entry.slotsPerHca(), allocations);
  }
}
