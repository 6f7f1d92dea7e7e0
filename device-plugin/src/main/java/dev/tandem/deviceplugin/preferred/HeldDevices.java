package dev.tandem.deviceplugin.preferred;

import java.util.List;

/**
 * Devices of one resource held by one container, as the kubelet's PodResources List reports them.
 */
public record HeldDevices(
    String namespace, String pod, String container, String resource, List<String> deviceIds) {

  public HeldDevices {
    deviceIds = List.copyOf(deviceIds);
  }
}
