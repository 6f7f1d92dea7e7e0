package dev.tandem.deviceplugin.resource;

import dev.tandem.deviceplugin.allocate.AllocateResponder;
import java.util.List;
import java.util.Map;

/**
 * What differs between the resources a {@link ResourcePlugin} serves: which devices there are, how
 * their health is read, and what Allocate gives a container. {@link HcaDevices} and {@link
 * GpuDevices}.
 */
public interface ResourceDevices {

  /** The extended resource registered, e.g. {@code rdma/hca}. */
  String resourceName();

  /** What the devices are called in the log ("devices", "GPUs"). */
  String noun();

  /** The devices in ListAndWatch order. */
  List<OfferedDevice> offered();

  /** Health as discovery saw it, per health key, until a check reads it. */
  Map<String, Boolean> discoveredHealth();

  /**
   * Health now, per {@link OfferedDevice#healthKey}; a device no probe can tell about keeps the
   * health discovery saw. Blocking: called on a worker thread.
   */
  Map<String, Boolean> readHealth();

  /** The log line for a change of health, e.g. {@code HCA mlx5_0 on node n1 is now Healthy}. */
  String healthChange(String healthKey, boolean healthy);

  /** Answers Allocate for these devices. */
  AllocateResponder allocateResponder();
}
