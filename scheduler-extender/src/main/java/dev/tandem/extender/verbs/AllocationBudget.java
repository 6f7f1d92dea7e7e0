package dev.tandem.extender.verbs;

/**
 * How many nodes of one filter or prioritize call may need the allocator before the verb stops and
 * answers null, so that its caller can ask again on a worker thread. Nodes of whole GPUs and HCAs
 * do not count: their verdict comes from free devices per group ({@code Allocator.verdict}), about
 * 0.2 µs a node, less than the hop would cost.
 */
public final class AllocationBudget {

  /**
   * For a call made on an event loop: about 0.1 ms of allocator time. A burst of one pod shape
   * finds every other answer remembered; moving a request of thousands of nodes to a worker thread
   * cost more than deciding it.
   */
  public static final int EVENT_LOOP = 64;

  /** No limit: every node is decided. */
  public static final int UNLIMITED = Integer.MAX_VALUE;

  private AllocationBudget() {}
}
