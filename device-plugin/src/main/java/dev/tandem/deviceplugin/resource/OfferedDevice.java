package dev.tandem.deviceplugin.resource;

/**
 * One device offered to the kubelet.
 *
 * @param id the kubelet's device id
 * @param numaNode its NUMA node, -1 when unknown
 * @param healthKey what its health is read under (an HCA's shared slots share their HCA's)
 */
public record OfferedDevice(String id, int numaNode, String healthKey) {}
