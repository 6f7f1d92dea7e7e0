package dev.tandem.dra;

import dev.tandem.api.identity.DeviceIds;
import dev.tandem.api.rail.NodeRails;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.dra.publish.PoolSlices;
import dev.tandem.dra.slices.HcaShape;
import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.dra.slices.PoolSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * {@code java -jar dra-driver.jar slices --node-name NODE --hwloc-xml FILE [--joint]}: the
 * ResourceSlices the driver would publish for that node, as a JSON list on standard output, built
 * by the driver's own {@link PoolBuilder} from the machine of an hwloc export (HCAs one device
 * each, driver {@value PoolSpec#DEFAULT_DRIVER}, rails by PCI order as a driver without {@code
 * --rail-map} publishes them). The scheduling-throughput benchmark gives its fake nodes these. Exit
 * 0 when printed, 1 when the file or the pool is refused, 2 for a bad command line.
 */
final class SlicesCommand {

  static final String USAGE =
      """
      usage: dra-driver.jar slices --node-name NODE --hwloc-xml FILE [--joint]

      Prints the ResourceSlices (resource.k8s.io/v1, a JSON list) Tandem's DRA driver publishes for
      node NODE whose machine is the hwloc export FILE: its HCAs, and with --joint its GPUs too.
      """;

  private SlicesCommand() {}

  /** Runs the command (its arguments, without {@code slices}); returns the exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    String node = null;
    Path hwloc = null;
    boolean joint = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--joint" -> joint = true;
        case "--node-name", "--hwloc-xml" -> {
          if (i + 1 >= args.length) {
            err.print("slices: " + args[i] + " needs a value\n" + USAGE);
            return 2;
          }
          if (args[i].equals("--node-name")) {
            node = args[++i];
          } else {
            hwloc = Path.of(args[++i]);
          }
        }
        default -> {
          err.print("slices: unexpected argument '" + args[i] + "'\n" + USAGE);
          return 2;
        }
      }
    }
    if (node == null || hwloc == null) {
      err.print("slices: --node-name and --hwloc-xml are both required\n" + USAGE);
      return 2;
    }
    try {
      NodePool pool =
          PoolBuilder.build(
              TopologySources.create(DiscoveryOptions.hwlocXml(node, hwloc), NodeRails.byPciOrder())
                  .discover()
                  .machine(),
              new PoolSpec(
                  PoolSpec.DEFAULT_DRIVER, joint, HcaShape.HCA, DeviceIds.DEFAULT_SHARES_PER_HCA));
      out.println(new KubernetesSerialization().asJson(PoolSlices.of(pool)));
      return 0;
    } catch (RuntimeException e) {
      err.println("slices: node " + node + " from " + hwloc + ": " + e.getMessage());
      return 1;
    }
  }
}
