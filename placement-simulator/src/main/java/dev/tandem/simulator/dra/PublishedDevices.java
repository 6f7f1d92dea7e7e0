package dev.tandem.simulator.dra;

import dev.tandem.api.claims.ClaimGenerator;
import dev.tandem.api.claims.DraDevice;
import dev.tandem.api.dra.LocalityAttributes;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.PcieNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The devices of a node that a claim can still be allocated, as Tandem's DRA driver publishes them
 * in joint mode: every GPU and every HCA that is not a VF, named by {@link DeviceIds#draName}, in
 * the node's canonical order (the driver's slice order), with the locality attributes the driver
 * publishes, from the same code ({@link LocalityAttributes}).
 */
public final class PublishedDevices {

  private PublishedDevices() {}

  /** Units a published device has: 1 for a GPU or a usable HCA, 0 for a VF or a tainted HCA. */
  public static int units(Device d) {
    if (d.kind() == DeviceKind.GPU) {
      return 1;
    }
    boolean tainted = d.hca().ibDevice() == null || !d.hca().portUsable();
    return d.hca().virtualFunction() || tainted ? 0 : 1;
  }

  /** The devices with a free unit in {@code free} that the driver publishes, with attributes. */
  public static List<DraDevice> free(Availability free) {
    return published(free, d -> units(d) > 0);
  }

  /**
   * Every device with a free unit in {@code free}, as the driver would publish it were every HCA
   * named and its port up: the placement simulator's nodes, whose devices are all healthy
   * (docs/placement.md, "Limits of the model"), while topology files often lack ibverbs names and
   * port states ({@link #units} leaves such HCAs out).
   */
  public static List<DraDevice> offered(Availability free) {
    return published(free, d -> true);
  }

  private static List<DraDevice> published(Availability free, Predicate<Device> publishes) {
    LocalityIndex index = free.index();
    Map<String, PcieNode> nodes = new HashMap<>();
    index.machine().pcie().forEach(n -> nodes.put(n.id(), n));
    List<DraDevice> out = new ArrayList<>();
    for (int i = 0; i < index.devices().size(); i++) {
      Device d = index.devices().get(i);
      if (free.free(i) > 0 && publishes.test(d)) {
        out.add(
            new DraDevice(
                DeviceIds.draName(d),
                ClaimGenerator.deviceClass(d.kind()),
                LocalityAttributes.of(d, nodes)));
      }
    }
    return out;
  }
}
