package dev.tandem.extender.verbs;

/**
 * One pod kube-scheduler proposes to evict: a {@code MetaPod} (UID only, {@code nodeCacheCapable:
 * true}) or a full v1.Pod ({@code false}), of which only what a preemption needs is kept.
 *
 * @param uid the pod's UID
 * @param name {@code namespace/name} when the request carried the pod; null for a MetaPod
 * @param node {@code spec.nodeName} when the request carried the pod; null for a MetaPod
 * @param priority {@code spec.priority} when the request carried the pod; null for a MetaPod
 */
public record ProposedVictim(String uid, String name, String node, Integer priority) {

  /** A MetaPod: the UID is all kube-scheduler sends. */
  public static ProposedVictim meta(String uid) {
    return new ProposedVictim(uid, null, null, null);
  }
}
