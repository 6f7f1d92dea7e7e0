package dev.tandem.kubelet.deviceplugin;

import dev.tandem.kubelet.deviceplugin.v1beta1.Device;
import dev.tandem.kubelet.deviceplugin.v1beta1.NUMANode;
import dev.tandem.kubelet.deviceplugin.v1beta1.TopologyInfo;

/** One device as a plugin lists it to the kubelet in {@code ListAndWatch}. */
public final class AdvertisedDevice {

  /** The kubelet's spelling of a healthy device. */
  public static final String HEALTHY = "Healthy";

  /** The kubelet's spelling of an unhealthy device. */
  public static final String UNHEALTHY = "Unhealthy";

  private AdvertisedDevice() {}

  /**
   * @param id the id the kubelet will report the device by
   * @param healthy whether the kubelet may allocate it
   * @param numaNode its NUMA node, or a negative number when unknown (no topology is sent)
   */
  public static Device of(String id, boolean healthy, int numaNode) {
    Device.Builder d = Device.newBuilder().setID(id).setHealth(healthy ? HEALTHY : UNHEALTHY);
    if (numaNode >= 0) {
      d.setTopology(TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(numaNode)));
    }
    return d.build();
  }
}
