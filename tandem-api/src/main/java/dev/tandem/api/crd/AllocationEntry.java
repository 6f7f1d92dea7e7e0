package dev.tandem.api.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The devices of one resource held by one container: granted by a device plugin, or allocated
 * through a DRA ResourceClaim.
 *
 * @param podUid the pod's uid; empty when the pod object is not known yet
 * @param namespace the pod's namespace
 * @param pod the pod's name
 * @param container the container's name (for a claim several containers share, the first the
 *     kubelet lists it under)
 * @param resource the extended resource, e.g. {@code rdma/hca}; for a DRA device the GPU or HCA
 *     resource of the device it stands for, or its driver's name when it stands for no device of
 *     the tree
 * @param deviceIds device ids as the kubelet reports them; for DRA devices the ids of the tree's
 *     devices they stand for (read through the one identity mapping), or {@code
 *     <driver>/<pool>/<device>} when they stand for none
 * @param complete true when the device count reached the container's limit; false means the
 *     allocation is still in progress (the kubelet records each resource separately). Always true
 *     for a claim: the kubelet prepares a claim whole
 * @param claim the ResourceClaim the devices are allocated through, {@code namespace/name}; absent
 *     for a device plugin's devices
 * @param driver the DRA driver of the claim's devices; absent for a device plugin's devices
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AllocationEntry(
    String podUid,
    String namespace,
    String pod,
    String container,
    String resource,
    List<String> deviceIds,
    boolean complete,
    @JsonInclude(JsonInclude.Include.NON_NULL) String claim,
    @JsonInclude(JsonInclude.Include.NON_NULL) String driver) {

  public AllocationEntry {
    deviceIds = deviceIds == null ? List.of() : List.copyOf(deviceIds);
  }

  /** A device plugin's devices. */
  public AllocationEntry(
      String podUid,
      String namespace,
      String pod,
      String container,
      String resource,
      List<String> deviceIds,
      boolean complete) {
    this(podUid, namespace, pod, container, resource, deviceIds, complete, null, null);
  }

  /** Whether the devices come through a DRA ResourceClaim. */
  public boolean throughClaim() {
    return claim != null;
  }
}
