package dev.tandem.extender.state;

/**
 * A pod on a node, as this extender's pod cache knows it: what a preemption needs of a victim that
 * kube-scheduler names only by UID.
 *
 * @param ref namespace, name and UID
 * @param node the node it is assigned to; null when not known (a pod seen only by filter)
 * @param priority {@code spec.priority} (0 when absent, as kube-scheduler reads it)
 */
public record AssignedPod(PodRef ref, String node, int priority) {}
