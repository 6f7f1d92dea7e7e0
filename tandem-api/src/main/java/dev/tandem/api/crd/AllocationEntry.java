package dev.tandem.api.crd;

import java.util.List;

/**
 * The devices of one resource held by one container.
 *
 * @param podUid the pod's uid; empty when the pod object is not known yet
 * @param namespace the pod's namespace
 * @param pod the pod's name
 * @param container the container's name
 * @param resource the extended resource, e.g. {@code rdma/hca}
 * @param deviceIds device ids as the kubelet reports them
 * @param complete true when the device count reached the container's limit; false means the
 *     allocation is still in progress (the kubelet records each resource separately)
 */
public record AllocationEntry(
    String podUid,
    String namespace,
    String pod,
    String container,
    String resource,
    List<String> deviceIds,
    boolean complete) {

  public AllocationEntry {
    deviceIds = deviceIds == null ? List.of() : List.copyOf(deviceIds);
  }
}
