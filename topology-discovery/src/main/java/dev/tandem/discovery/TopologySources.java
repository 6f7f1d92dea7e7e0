package dev.tandem.discovery;

import dev.tandem.discovery.hwloc.Hwloc;
import dev.tandem.discovery.hwloc.HwlocXmlSource;
import dev.tandem.discovery.ibverbs.Ibverbs;
import dev.tandem.discovery.live.LiveSource;
import dev.tandem.discovery.nccl.NcclTopoSource;
import dev.tandem.discovery.sysfs.SysfsSource;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import java.util.function.Function;

/**
 * The factory of topology sources: one adapter per kind of input, chosen from the options.
 *
 * <p>A named file wins ({@code hwlocXml} through libhwloc, else {@code ncclTopo}); otherwise this
 * machine through libhwloc, then the sysfs tree (when hwloc is missing or finds no GPU or HCA),
 * then libibverbs for port states; or only the sysfs tree when the libraries are not to be used.
 * Where the source reads this node, HCAs without an ibverbs name are marked ({@link
 * DriverlessHcas}). A node daemon also gives its rail rule ({@link #create(DiscoveryOptions,
 * Function)}), applied to every machine discovered.
 */
public final class TopologySources {

  private TopologySources() {}

  /**
   * A source for these options, with its own note memory and library handles. Its HCAs carry no
   * rail: for commands and tests that read a machine as it is.
   */
  public static TopologySource create(DiscoveryOptions options) {
    return new LoggedSource(adapter(options), new DiscoveryLog(), options.readsNode());
  }

  /**
   * A source for these options whose machines carry their HCAs' rails as {@code rails} sets them
   * (the node daemons: tandem-api's {@code NodeRails}), its notes logged and returned with the
   * discovery's; a rule that throws fails the discovery ({@link DiscoveryException}) with its
   * message.
   */
  public static TopologySource create(
      DiscoveryOptions options, Function<Machine, Rails.Assigned> rails) {
    return new LoggedSource(
        new RailedSource(adapter(options), rails), new DiscoveryLog(), options.readsNode());
  }

  /**
   * Discovers once through a fresh source, for callers that do not rediscover (a command, a daemon
   * at start, a test): every note is logged at INFO.
   */
  public static Discovery discoverOnce(DiscoveryOptions options) {
    return create(options).discover();
  }

  private static TopologySource adapter(DiscoveryOptions options) {
    String node = options.nodeName();
    if (options.hwlocXml() != null) {
      return new HwlocXmlSource(node, options.hwlocXml(), new Hwloc());
    }
    if (options.ncclTopo() != null) {
      return new NcclTopoSource(
          node, options.ncclTopo(), options.fileAlone() ? null : options.sysfsRoot());
    }
    if (options.useLibraries()) {
      return new LiveSource(node, options.sysfsRoot(), new Hwloc(), new Ibverbs());
    }
    return new SysfsSource(node, options.sysfsRoot());
  }
}
