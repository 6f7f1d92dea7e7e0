package dev.tandem.extender.verbs;

/**
 * Preemption arguments that contradict what this extender knows: a node it has never seen, or a
 * victim it knows on another node. kube-scheduler receives no answer for them (an HTTP 400), so it
 * evicts nothing in this attempt and tries again with fresher caches.
 */
public final class InvalidPreemption extends RuntimeException {

  private static final long serialVersionUID = 1L;

  InvalidPreemption(String message) {
    super(message, null, false, false);
  }
}
