package dev.tandem.extender.scheduling;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;

/**
 * The allocator's answer for one node and one request shape, cached by the node's state version:
 * a burst of identical pods costs one computation per node, and any change to the node (new tree,
 * allocation, assumed plan) makes a new version, so no stale answer is served. The node's
 * {@link dev.tandem.extender.state.LastAnswer} is read first: a burst of one pod shape then costs
 * no key per node.
 */
public final class NodeEvaluator {

  private record Key(String node, long version, AllocationRequest request) {}

  private final Cache<Key, AllocationResult> cache;

  public NodeEvaluator(long maximumSize) {
    this.cache = Caffeine.newBuilder().maximumSize(maximumSize).build();
  }

  public AllocationResult evaluate(NodeEntry node, AllocationRequest request) {
    AllocationResult last = node.lastAnswer().get(request);
    if (last != null) {
      return last;
    }
    Key key = new Key(node.name(), node.version(), request);
    AllocationResult answer = cache.getIfPresent(key);
    if (answer == null) {
      answer = node.allocator().allocate(request, node.free());
      cache.put(key, answer);
    }
    node.lastAnswer().set(request, answer);
    return answer;
  }

  public long size() {
    cache.cleanUp();
    return cache.estimatedSize();
  }
}
