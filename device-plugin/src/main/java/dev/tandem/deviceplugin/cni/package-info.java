/**
 * The hand-off to CNI plugins: for every device the kubelet grants, a Device Information file as
 * the Network Plumbing Working Group's Device Information Specification (1.1.0, section 4.1)
 * defines it, which Multus copies for SR-IOV CNI and the RDMA CNI; removed when no container holds
 * the device any more (the kubelet's PodResources List, read periodically) and when the plugin
 * stops.
 */
package dev.tandem.deviceplugin.cni;
