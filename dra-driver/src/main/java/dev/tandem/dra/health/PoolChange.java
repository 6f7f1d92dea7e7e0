package dev.tandem.dra.health;

import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PublishedDevice;
import dev.tandem.dra.slices.Taint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What changed between two pools of a node in what the slices say (devices, their attributes and
 * taints), in words for the log: {@code "mlx5-1 tainted tandem.dev/unhealthy=port-not-active;
 * mlx5-3 gone"}. Empty when the slices would say the same. Pure.
 */
public final class PoolChange {

  private PoolChange() {}

  /** The change from {@code was} to {@code now}; empty when none. */
  public static String describe(NodePool was, NodePool now) {
    Map<String, PublishedDevice> before = byName(was);
    Map<String, PublishedDevice> after = byName(now);
    List<String> out = new ArrayList<>();
    for (PublishedDevice d : after.values()) {
      PublishedDevice old = before.get(d.name());
      if (old == null) {
        out.add(d.name() + " new" + taints(" tainted ", d));
      } else if (!old.taints().equals(d.taints())) {
        out.add(d.name() + (d.taints().isEmpty() ? " healthy again" : taints(" tainted ", d)));
      } else if (!old.attributes().equals(d.attributes())) {
        out.add(d.name() + " attributes changed");
      }
    }
    before.keySet().stream().filter(n -> !after.containsKey(n)).forEach(n -> out.add(n + " gone"));
    return String.join("; ", out);
  }

  private static Map<String, PublishedDevice> byName(NodePool pool) {
    Map<String, PublishedDevice> out = new LinkedHashMap<>();
    pool.devices().forEach(d -> out.put(d.name(), d));
    return out;
  }

  private static String taints(String prefix, PublishedDevice d) {
    if (d.taints().isEmpty()) {
      return "";
    }
    return prefix + d.taints().stream().map(PoolChange::text).collect(Collectors.joining(", "));
  }

  /** A taint as kubectl shows it: {@code key=value:effect}. */
  static String text(Taint t) {
    return t.key() + "=" + t.value() + ":" + t.effect();
  }
}
