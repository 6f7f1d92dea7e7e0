package dev.tandem.extender.state;

import java.util.List;

/**
 * Devices the kubelet gave a container, as the node's agent reports them in NodeTopology status.
 *
 * @param namespace pod namespace
 * @param pod pod name
 * @param uid pod UID
 * @param container container name
 * @param resource extended resource name, e.g. {@code nvidia.com/gpu}
 * @param deviceIds the device ids (an HCA id once per shared slot)
 * @param claim the DRA ResourceClaim ({@code namespace/name}) the devices are allocated through;
 *     null for a device plugin's devices
 * @param driver the DRA driver of the claim's devices; null for a device plugin's devices
 */
public record ReportedAllocation(
    String namespace,
    String pod,
    String uid,
    String container,
    String resource,
    List<String> deviceIds,
    String claim,
    String driver) {

  public ReportedAllocation {
    deviceIds = deviceIds == null ? List.of() : List.copyOf(deviceIds);
  }

  /** A device plugin's devices. */
  public ReportedAllocation(
      String namespace,
      String pod,
      String uid,
      String container,
      String resource,
      List<String> deviceIds) {
    this(namespace, pod, uid, container, resource, deviceIds, null, null);
  }
}
