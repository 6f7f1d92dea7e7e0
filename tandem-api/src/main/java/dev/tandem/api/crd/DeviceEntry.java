package dev.tandem.api.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A GPU or HCA as published.
 *
 * @param id the id the kubelet uses (GPU UUID, HCA name or VF PCI address)
 * @param kind {@code GPU} or {@code HCA}
 * @param name human name from the discovery source
 * @param resourceName the extended resource that hands it out: {@code nvidia.com/gpu} or {@code
 *     rdma/hca}
 * @param address PCI address; absent when the source hides it
 * @param numaNode NUMA node; absent when unknown
 * @param parent the PCIe node it hangs off
 * @param switchId the PCIe node naming its PIX group (its switch, or its root port)
 * @param vendor PCI vendor id, four hex digits
 * @param device PCI device id, four hex digits
 * @param model marketing name
 * @param healthy whether it can be allocated
 * @param hca HCA attributes; absent for a GPU
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record DeviceEntry(
    String id,
    String kind,
    String name,
    String resourceName,
    String address,
    Integer numaNode,
    String parent,
    @JsonProperty("switch") String switchId,
    String vendor,
    String device,
    String model,
    boolean healthy,
    HcaEntry hca) {}
