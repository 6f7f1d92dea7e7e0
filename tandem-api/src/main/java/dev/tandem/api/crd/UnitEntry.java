package dev.tandem.api.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * How many devices the kubelet can hand out that stand for one device of the tree: 1 for a whole
 * GPU or HCA, the slots of a shared HCA, the replicas of a time-sliced GPU. Counted by the agent
 * from the kubelet's {@code GetAllocatableResources}, through the one id mapping ({@code
 * dev.tandem.api.identity.DeviceIds}).
 *
 * @param resource the extended resource, e.g. {@code rdma/hca}
 * @param device the device's id in {@code spec.devices}
 * @param units the kubelet devices of {@code resource} that stand for it
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record UnitEntry(String resource, String device, int units) {}
