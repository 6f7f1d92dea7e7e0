package dev.tandem.extender.standby;

import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodSource;
import dev.tandem.extender.verbs.BindVerb;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * The bind of a rehearsal cycle, on the node prioritize scored best: the bind verb's own reading of
 * the pod, planning on the node and preparing of the Binding ({@link BindVerb#rehearse}), which
 * holds and sends nothing; and, every {@value #READ_EVERY} cycles, the read of the API server a
 * bind makes (a GET of a pod), for this replica's own pod, its answer dropped. So a standby that
 * takes the lease has compiled the Kubernetes client's request path as well as the verbs.
 */
public final class BindRehearsal {

  /** Cycles between two reads of the API server: a few a second at most. */
  static final int READ_EVERY = 8;

  private final BindVerb bind;
  private final PodSource pods;
  private final PodRef self;

  /**
   * @param pods where a bind reads its pod
   * @param self this replica's own pod, by namespace and name: it is read as a bind reads its pod,
   *     and whether it is found does not matter (outside a cluster it is not)
   */
  public BindRehearsal(BindVerb bind, PodSource pods, PodRef self) {
    this.bind = bind;
    this.pods = pods;
    this.self = self;
  }

  /** The bind of cycle {@code n}; whether the pod was planned on the node. */
  Future<Boolean> rehearse(int n, JsonObject pod, String node) {
    Future<Void> read =
        n % READ_EVERY == 0
            ? pods.pod(self).<Void>mapEmpty().recover(dropped -> Future.succeededFuture())
            : Future.succeededFuture();
    return read.map(v -> bind.rehearse(pod, node));
  }
}
