package dev.tandem.extender.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The informers of the {@link ClaimAudit}: unscheduled pods ({@code spec.nodeName=}) and
 * ResourceClaims of every namespace. They run beside the extender's own informers and never hold
 * its readiness back: where the API server serves no {@code resource.k8s.io/v1} (before 1.34) or
 * RBAC refuses the claims, the watch is logged once and retried every minute, and nothing else
 * changes.
 */
final class ClaimWatch implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ClaimWatch.class);
  static final long RETRY_MILLIS = 60_000;

  private final Vertx vertx;
  private final KubernetesClient client;
  private final ClaimAudit audit;
  private final long resyncMillis;
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private volatile SharedIndexInformer<Pod> pods;
  private volatile SharedIndexInformer<ResourceClaim> claims;
  private volatile boolean closed;
  private boolean warned;

  ClaimWatch(Vertx vertx, KubernetesClient client, ClaimAudit audit, long resyncMillis) {
    this.vertx = vertx;
    this.client = client;
    this.audit = audit;
    this.resyncMillis = resyncMillis;
  }

  /** Starts the informers on a worker, retrying until they run. */
  void start() {
    vertx
        .executeBlocking(
            () -> {
              try {
                run();
              } catch (RuntimeException e) {
                stopInformers();
                throw e;
              }
              return null;
            },
            false)
        .onSuccess(v -> LOG.info("claim audit: watching unscheduled pods and ResourceClaims"))
        .onFailure(
            e -> {
              String why =
                  "claim audit off: cannot watch ResourceClaims ({}; resource.k8s.io/v1 is served"
                      + " from Kubernetes 1.34, and the extender's role needs list and watch on"
                      + " resourceclaims); retrying every minute";
              if (!warned) {
                LOG.warn(why, e.getMessage());
                warned = true;
              } else {
                LOG.debug(why, e.getMessage());
              }
              if (!closed) {
                vertx.setTimer(RETRY_MILLIS, id -> start());
              }
            });
  }

  private synchronized void run() {
    if (closed) {
      return;
    }
    claims =
        client
            .resources(ResourceClaim.class)
            .inAnyNamespace()
            .withLimit(KubeCluster.LIST_PAGE)
            .runnableInformer(resyncMillis);
    pods =
        client
            .pods()
            .inAnyNamespace()
            .withField("spec.nodeName", "")
            .withLimit(KubeCluster.LIST_PAGE)
            .runnableInformer(resyncMillis);
    claims.addEventHandler(claimHandler());
    pods.addEventHandler(podHandler());
    informers.add(claims);
    claims.run();
    informers.add(pods);
    pods.run();
  }

  private ResourceClaim claim(String key) {
    return claims.getStore().getByKey(key);
  }

  private ResourceEventHandler<Pod> podHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod) {
        if (ClaimAudit.pending(pod)) {
          audit.pod(pod, ClaimWatch.this::claim);
        } else {
          audit.podGone(pod);
        }
      }

      @Override
      public void onUpdate(Pod old, Pod pod) {
        onAdd(pod);
      }

      @Override
      public void onDelete(Pod pod, boolean unknownFinalState) {
        audit.podGone(pod);
      }
    };
  }

  private ResourceEventHandler<ResourceClaim> claimHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(ResourceClaim claim) {
        SharedIndexInformer<Pod> p = pods;
        if (p == null) {
          return;
        }
        String namespace = claim.getMetadata().getNamespace();
        p.getStore().list().stream()
            .filter(pod -> namespace.equals(pod.getMetadata().getNamespace()))
            .forEach(pod -> audit.pod(pod, ClaimWatch.this::claim));
      }

      @Override
      public void onUpdate(ResourceClaim old, ResourceClaim claim) {
        if (Informers.changed(old, claim)) {
          onAdd(claim);
        }
      }

      @Override
      public void onDelete(ResourceClaim claim, boolean unknownFinalState) {
        audit.claimGone(claim);
      }
    };
  }

  private synchronized void stopInformers() {
    informers.forEach(SharedIndexInformer::stop);
    informers.clear();
  }

  @Override
  public void close() {
    closed = true;
    stopInformers();
  }
}
