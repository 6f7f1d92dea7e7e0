package dev.tandem.dra.slices;

import dev.tandem.api.identity.DeviceIds;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds a node's pool from its tree: in joint mode every GPU, and every HCA that is not an SR-IOV
 * VF ({@code hca} shape: one device per HCA), each named through the one device-identity mapping
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
   *     (two names that collide, a name or an attribute beyond the API's limits)
   */
  public static NodePool build(Machine machine, PoolSpec spec) {
    List<Device> chosen = new ArrayList<>();
    for (Device d : machine.devices()) {
      boolean gpu = d.kind() == DeviceKind.GPU;
      if (gpu ? spec.gpus() : !d.hca().virtualFunction()) {
        chosen.add(d);
      }
    }
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
      named.forEach(
          (name, d) -> out.add(new PublishedDevice(name, d, attributes.of(d), taints(d))));
    } catch (InvalidPoolException e) {
      throw new InvalidPoolException("node " + machine.nodeName() + ": " + e.getMessage(), e);
    }
    return new NodePool(spec.driver(), machine.nodeName(), out);
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
