package dev.tandem.api.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * An inner node of the tree as published.
 *
 * @param id unique within the node, e.g. {@code pci:0000:49:00.0}
 * @param kind {@code CPU_DOMAIN}, {@code HOST_BRIDGE}, {@code ROOT_PORT}, {@code SWITCH_UPSTREAM},
 *     {@code SWITCH_DOWNSTREAM} or {@code BRIDGE}
 * @param parent the parent's id; absent for a CPU domain
 * @param address PCI address of a bridge, {@code dddd:bb:dd.f}
 * @param vendor PCI vendor id as four hex digits, e.g. {@code 15b3}; absent when unknown
 * @param device PCI device id as four hex digits; absent when unknown
 * @param numaNodes NUMA nodes of a CPU domain
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonIgnoreProperties(ignoreUnknown = true)
public record PcieNodeEntry(
    String id,
    String kind,
    String parent,
    String address,
    String vendor,
    String device,
    List<Integer> numaNodes) {

  public PcieNodeEntry {
    numaNodes = numaNodes == null ? List.of() : List.copyOf(numaNodes);
  }
}
