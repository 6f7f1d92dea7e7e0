package dev.tandem.deviceplugin.allocate;

import io.vertx.core.Future;
import java.util.List;

/**
 * What the plugin does outside the container for devices the kubelet has just granted, before
 * Allocate answers: e.g. the Device Information files CNI plugins read ({@code cni}). A failure
 * fails the Allocate call.
 */
@FunctionalInterface
public interface DeviceHandOff {

  /** Nothing to do. */
  DeviceHandOff NONE = ids -> Future.succeededFuture();

  /**
   * @param deviceIds the device ids of every container request of one Allocate call, offered ones
   *     only (the call was checked)
   * @return completes when the hand-off is done; fails naming the device, the file and what to do
   */
  Future<Void> granted(List<String> deviceIds);
}
