package dev.tandem.simulator.engine;

/** What a policy does with a pod now: place it, let it wait, or refuse it for good. */
public sealed interface Decision {

  /** The pod starts on these devices. */
  record Placed(Placement placement) implements Decision {}

  /** No node takes it now; it stays pending (kube-scheduler retries it). */
  record Wait(String reason) implements Decision {}

  /** Refused at admission (e.g. the kubelet's TopologyAffinityError): the pod fails. */
  record Rejected(String reason) implements Decision {}
}
