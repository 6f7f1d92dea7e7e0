package dev.tandem.discovery;

import dev.tandem.topology.model.Machine;

/**
 * An adapter as callers see it: HCAs without their RDMA driver marked ({@link DriverlessHcas}) when
 * it reads this node, its notes through the source's {@link DiscoveryLog}, and a tree without GPUs
 * or HCAs reported as the empty topology (nothing to schedule on it).
 */
final class LoggedSource implements TopologySource {

  private final TopologySource adapter;
  private final DiscoveryLog log;
  private final boolean readsNode;

  LoggedSource(TopologySource adapter, DiscoveryLog log, boolean readsNode) {
    this.adapter = adapter;
    this.log = log;
    this.readsNode = readsNode;
  }

  @Override
  public Discovery discover() {
    Discovery found = adapter.discover();
    Discovery d = readsNode ? DriverlessHcas.marked(found) : found;
    log.log(d);
    Machine m = d.machine();
    if (m.devices().isEmpty() && !m.pcie().isEmpty()) {
      return new Discovery(
          Machine.empty(m.nodeName(), m.source()), d.source(), d.notes(), d.warnings());
    }
    return d;
  }
}
