package dev.tandem.extender.scheduling;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;

/**
 * The allocator's answer for one node and one request shape, cached by the node's state version:
 * a burst of identical pods costs one computation per node, and any change to the node (new tree,
 * allocation, assumed plan) makes a new version, so no stale answer is served.
 */
public final class NodeEvaluator {

  private record Key(String node, long version, AllocationRequest request) {}

  private final Cache<Key, AllocationResult> cache;

  public NodeEvaluator(long maximumSize) {
    this.cache = Caffeine.newBuilder().maximumSize(maximumSize).build();
  }

  public AllocationResult evaluate(NodeEntry node, AllocationRequest request) {
    Key key = new Key(node.name(), node.version(), request);
    AllocationResult hit = cache.getIfPresent(key);
    if (hit != null) {
      return hit;
    }
    AllocationResult computed = node.allocator().allocate(request, node.free());
    cache.put(key, computed);
    return computed;
  }

  public long size() {
    cache.cleanUp();
    return cache.estimatedSize();
  }
}
