package dev.tandem.extender.state;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * The nodes of the cluster state, by name: a {@link NodeCell} per node, changed only inside {@link
 * ConcurrentHashMap#compute} on the node's key (changes to one node are serialized), and a {@link
 * NodeDirectory} over them, rebuilt on read after nodes came or went.
 */
final class NodeTable {

  private final ConcurrentHashMap<String, NodeCell> cells = new ConcurrentHashMap<>();

  /** Counts nodes added and removed; raised after the change is visible in {@link #cells}. */
  private final AtomicLong membership = new AtomicLong();

  private volatile NodeDirectory directory = NodeDirectory.of(0, List.of(), cells);

  NodeEntry get(String name) {
    NodeCell c = cells.get(name);
    return c == null ? null : c.entry();
  }

  /** Like {@link ConcurrentHashMap#compute}: null in means absent, null out removes the node. */
  NodeEntry compute(String name, BiFunction<String, NodeEntry, NodeEntry> change) {
    return apply(name, change, false);
  }

  /** Like {@link ConcurrentHashMap#computeIfPresent}. */
  NodeEntry computeIfPresent(String name, BiFunction<String, NodeEntry, NodeEntry> change) {
    return apply(name, change, true);
  }

  NodeEntry remove(String name) {
    NodeEntry[] old = new NodeEntry[1];
    computeIfPresent(
        name,
        (n, e) -> {
          old[0] = e;
          return null;
        });
    return old[0];
  }

  private NodeEntry apply(
      String name, BiFunction<String, NodeEntry, NodeEntry> change, boolean onlyPresent) {
    NodeEntry[] now = new NodeEntry[1];
    boolean[] joinedOrLeft = new boolean[1];
    BiFunction<String, NodeCell, NodeCell> step =
        (n, cell) -> {
          now[0] = change.apply(n, cell == null ? null : cell.entry());
          if (now[0] == null) {
            if (cell != null) {
              cell.entry(null);
              joinedOrLeft[0] = true;
            }
            return null;
          }
          NodeCell target = cell;
          if (target == null) {
            target = new NodeCell(n);
            joinedOrLeft[0] = true;
          }
          target.entry(now[0]);
          return target;
        };
    if (onlyPresent) {
      cells.computeIfPresent(name, step);
    } else {
      cells.compute(name, step);
    }
    if (joinedOrLeft[0]) {
      membership.incrementAndGet();
    }
    return now[0];
  }

  /** The current entries, in a new list the caller may change. */
  List<NodeEntry> values() {
    List<NodeEntry> out = new ArrayList<>(cells.size());
    for (NodeCell c : cells.values()) {
      NodeEntry e = c.entry();
      if (e != null) {
        out.add(e);
      }
    }
    return out;
  }

  Set<String> names() {
    return cells.keySet();
  }

  int size() {
    return cells.size();
  }

  /** A directory that holds at least every node present when it is called. */
  NodeDirectory directory() {
    NodeDirectory d = directory;
    long current = membership.get();
    if (d.generation() == current) {
      return d;
    }
    synchronized (this) {
      d = directory;
      current = membership.get();
      if (d.generation() != current) {
        d = NodeDirectory.of(current, cells.values(), cells);
        directory = d;
      }
      return d;
    }
  }
}
