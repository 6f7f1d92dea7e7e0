package dev.tandem.discovery;

import dev.tandem.topology.model.Machine;

/**
 * An adapter as callers see it: HCAs without their RDMA driver marked ({@link DriverlessHcas}), its
 * notes through the source's {@link DiscoveryLog}, and a tree without GPUs or HCAs reported as the
 * empty topology (nothing to schedule on it).
 */
final class LoggedSource implements TopologySource {

  private final TopologySource adapter;
  private final DiscoveryLog log;

  LoggedSource(TopologySource adapter, DiscoveryLog log) {
    this.adapter = adapter;
    this.log = log;
  }

  @Override
  public Discovery discover() {
    Discovery d = DriverlessHcas.marked(adapter.discover());
    log.log(d);
    Machine m = d.machine();
    if (m.devices().isEmpty() && !m.pcie().isEmpty()) {
      return new Discovery(
          Machine.empty(m.nodeName(), m.source()), d.source(), d.notes(), d.warnings());
    }
    return d;
  }
}
