package dev.tandem.dra.slices;

import dev.tandem.api.dra.AttributeValue;
import dev.tandem.api.dra.DeviceAttributes;
import dev.tandem.api.dra.DraAttributes;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Builds a node's pool from its tree: in joint mode every GPU, and the HCAs in the spec's {@link
 * HcaShape} (every HCA that is not an SR-IOV VF; or every VF, with {@code tandem.dev/pf}, and every
 * HCA without VFs; or every HCA that is not a VF with {@code allowMultipleAllocations} and a
 * capacity of {@code tandem.dev/shares}), each named through the one device-identity mapping
 * ({@link DeviceIds#draName}) and described by {@link DeviceAttributes}. A device that cannot be
 * allocated is published with a taint rather than left out: an HCA without RDMA driver ({@code
 * no-rdma-driver}), one whose port is not active ({@code port-not-active}), any device discovery
 * found unhealthy ({@code unhealthy}). Pure.
 */
public final class PoolBuilder {

  public static final String NO_RDMA_DRIVER = "no-rdma-driver";
  public static final String PORT_NOT_ACTIVE = "port-not-active";
  public static final String UNHEALTHY = "unhealthy";

  private PoolBuilder() {}

  /**
   * @throws InvalidPoolException naming the node and the device when a device cannot be published
   *     (two names that collide, a name or an attribute beyond the API's limits, a VF whose PF
   *     discovery does not know)
   */
  public static NodePool build(Machine machine, PoolSpec spec) {
    List<Device> chosen = chosen(machine, spec);
    Map<String, Device> named;
    try {
      named = DeviceIds.of(machine).draNames(chosen);
    } catch (IllegalArgumentException e) {
      throw new InvalidPoolException(
          "node " + machine.nodeName() + " cannot publish its devices: " + e.getMessage(), e);
    }
    DeviceAttributes attributes = new DeviceAttributes(machine);
    List<PublishedDevice> out = new ArrayList<>();
    try {
      named.forEach((name, d) -> out.add(published(name, d, attributes, spec)));
    } catch (InvalidPoolException e) {
      throw new InvalidPoolException("node " + machine.nodeName() + ": " + e.getMessage(), e);
    }
    return new NodePool(spec.driver(), machine.nodeName(), out);
  }

  private static List<Device> chosen(Machine machine, PoolSpec spec) {
    Set<PciAddress> withVfs = new HashSet<>();
    for (Device d : machine.hcas()) {
      if (spec.shape() == HcaShape.SRIOV && d.hca().virtualFunction()) {
        withVfs.add(physicalFunction(machine, d));
      }
    }
    List<Device> out = new ArrayList<>();
    for (Device d : machine.devices()) {
      boolean vf = d.kind() == DeviceKind.HCA && d.hca().virtualFunction();
      boolean chosen =
          switch (d.kind()) {
            case GPU -> spec.gpus();
            case HCA ->
                spec.shape() == HcaShape.SRIOV
                    ? vf || d.address() == null || !withVfs.contains(d.address())
                    : !vf;
          };
      if (chosen) {
        out.add(d);
      }
    }
    return out;
  }

  /** A VF's PF address; refused when discovery does not know it. */
  private static PciAddress physicalFunction(Machine machine, Device vf) {
    PciAddress pf = vf.hca().physicalFunction();
    if (pf == null) {
      throw new InvalidPoolException(
          "node "
              + machine.nodeName()
              + ": SR-IOV VF "
              + vf.id()
              + (vf.address() != null ? " at PCI " + vf.address() : "")
              + " has no known PF (discovery found no physfn link for it), so it cannot be"
              + " published with "
              + DraAttributes.PF
              + "; point --sysfs-root at the host's root so that /sys shows the PF, or publish"
              + " HCAs whole with --mode hca or --mode shared");
    }
    return pf;
  }

  private static PublishedDevice published(
      String name, Device d, DeviceAttributes attributes, PoolSpec spec) {
    SortedMap<String, AttributeValue> values = attributes.of(d);
    boolean hca = d.kind() == DeviceKind.HCA;
    if (hca && d.hca().virtualFunction()) {
      values.put(DraAttributes.PF, AttributeValue.text(d.hca().physicalFunction().toString()));
    }
    if (!hca || spec.shape() != HcaShape.SHARED) {
      return new PublishedDevice(name, d, values, taints(d));
    }
    SortedMap<String, ConsumableCapacity> capacity = new TreeMap<>();
    capacity.put(DraAttributes.SHARES, new ConsumableCapacity(spec.sharesPerHca(), 1));
    return new PublishedDevice(name, d, values, taints(d), capacity, true);
  }

  private static List<Taint> taints(Device d) {
    if (d.kind() == DeviceKind.HCA && d.hca().ibDevice() == null) {
      return List.of(Taint.unhealthy(NO_RDMA_DRIVER));
    }
    if (!d.healthy()) {
      return List.of(Taint.unhealthy(UNHEALTHY));
    }
    if (d.kind() == DeviceKind.HCA && !d.hca().portUsable()) {
      return List.of(Taint.unhealthy(PORT_NOT_ACTIVE));
    }
    return List.of();
  }
}
