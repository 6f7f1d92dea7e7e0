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
 */
public record ReportedAllocation(
    String namespace,
    String pod,
    String uid,
    String container,
    String resource,
    List<String> deviceIds) {

  public ReportedAllocation {
    deviceIds = deviceIds == null ? List.of() : List.copyOf(deviceIds);
  }
}
