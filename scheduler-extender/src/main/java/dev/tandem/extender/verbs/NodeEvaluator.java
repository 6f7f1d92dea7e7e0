package dev.tandem.extender.verbs;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tandem.extender.state.FreeState;
import dev.tandem.extender.state.NodeCell;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Verdict;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The allocator's verdict (refusal, or worst locality and score) for one node and one request
 * shape, cached by the node's state version: a burst of identical pods costs one computation per
 * node, and any change to the node (new tree, allocation, assumed plan) makes a new version, so no
 * stale answer is served (a version is kept beside its answer; a newer one replaces it). On nodes
 * of whole GPUs and HCAs the verdict is kept on the node's shared {@link FreeState} instead,
 * decided once for every node in that state: a shape never seen before costs one {@link
 * Allocator#verdict} per distinct state, and a pointer per node. Otherwise the answer remembered in
 * the node's {@link NodeCell} is read first: a burst of one pod shape then costs no key per node. A
 * request's shape and its hash are computed once per request ({@link #shape}), not once per node.
 */
public final class NodeEvaluator {

  /** Distinct request shapes kept canonical; pods beyond it still work, only compare slower. */
  private static final int MAX_SHAPES = 4096;

  /** One request shape, canonical while the shape table has room, with its hash. */
  public static final class Shape {
    private final AllocationRequest request;
    private final int hash;

    private Shape(AllocationRequest request) {
      this.request = request;
      this.hash = request.hashCode();
    }

    public AllocationRequest request() {
      return request;
    }
  }

  /**
   * A node and a request shape. The node's version is in the cached value, not the key: a node's
   * newer answer replaces its older one, so the cache holds live answers only instead of filling up
   * with answers for versions that can never be asked again (benchmarks/run-soak).
   */
  private static final class Key {
    private final String node;
    private final Shape shape;
    private final int hash;

    Key(String node, Shape shape) {
      this.node = node;
      this.shape = shape;
      this.hash = 31 * node.hashCode() + shape.hash;
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k
          && k.hash == hash
          && (k.shape == shape || k.shape.request.equals(shape.request))
          && k.node.equals(node);
    }
  }

  /** A verdict and the version of the node it was computed for. */
  private record Versioned(long version, Verdict verdict) {}

  private final Cache<Key, Versioned> cache;
  private final ConcurrentMap<AllocationRequest, Shape> shapes = new ConcurrentHashMap<>();

  public NodeEvaluator(long maximumSize) {
    this.cache = Caffeine.newBuilder().maximumSize(maximumSize).build();
  }

  /** The request's shape: compute it once per request and pass it to every node's evaluation. */
  public Shape shape(AllocationRequest request) {
    Shape s = shapes.get(request);
    if (s != null) {
      return s;
    }
    s = new Shape(request);
    if (shapes.size() >= MAX_SHAPES) {
      return s;
    }
    Shape raced = shapes.putIfAbsent(request, s);
    return raced == null ? s : raced;
  }

  public Verdict evaluate(NodeEntry node, AllocationRequest request) {
    return evaluate(node, shape(request));
  }

  /**
   * The verdict at the cell's entry {@code node} when it costs no allocator run: from the node's
   * shared state (whole GPUs and HCAs; decided there if need be), or remembered or cached; null
   * when the allocator would have to run.
   */
  public Verdict known(NodeCell cell, NodeEntry node, Shape shape) {
    FreeState state = cell.state();
    if (state != null) {
      return state.verdict(shape.request);
    }
    NodeCell.Answer remembered = cell.remembered(node, shape.request);
    return remembered != null ? remembered.verdict() : fromCache(cell, node, shape);
  }

  /** Kept out of {@link #known}, whose remembered answer is the filter loop's hot path. */
  private Verdict fromCache(NodeCell cell, NodeEntry node, Shape shape) {
    Verdict cached = cached(new Key(node.name(), shape), node);
    return cached == null ? null : cell.remember(node, shape.request, cached).verdict();
  }

  /**
   * Runs the allocator for the cell's entry {@code node}, whose answer was not {@link #known}:
   * caches the verdict and remembers it in the cell for the next request.
   */
  public Verdict allocate(NodeCell cell, NodeEntry node, Shape shape) {
    Verdict verdict = allocate(new Key(node.name(), shape), node, shape);
    return cell.remember(node, shape.request, verdict).verdict();
  }

  public Verdict evaluate(NodeEntry node, Shape shape) {
    Key key = new Key(node.name(), shape);
    Verdict answer = cached(key, node);
    return answer != null ? answer : allocate(key, node, shape);
  }

  /** The cached verdict for this version of the node; null when none or one for another version. */
  private Verdict cached(Key key, NodeEntry node) {
    Versioned v = cache.getIfPresent(key);
    return v != null && v.version() == node.version() ? v.verdict() : null;
  }

  /**
   * On whole GPUs and HCAs the verdict costs less than a cache entry would; with shared slots or
   * replicas it runs the allocator, and is cached.
   */
  private Verdict allocate(Key key, NodeEntry node, Shape shape) {
    Verdict answer = node.allocator().verdict(shape.request, node.free());
    if (!node.free().wholeDevices()) {
      cache.put(key, new Versioned(node.version(), answer));
    }
    return answer;
  }

  public long size() {
    cache.cleanUp();
    return cache.estimatedSize();
  }
}
