package dev.tandem.api.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The discovered tree.
 *
 * @param source where the tree came from: {@code hwloc}, {@code sysfs}, {@code xml}, {@code nccl}
 * @param summary counts shown by {@code kubectl get nodetopologies}
 * @param numaNodes NUMA node ids, ascending
 * @param pcie inner nodes of the tree, parents before children
 * @param devices GPUs, then HCAs, in the model's canonical order
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeTopologySpec(
    String source,
    Summary summary,
    List<Integer> numaNodes,
    List<PcieNodeEntry> pcie,
    List<DeviceEntry> devices) {

  public NodeTopologySpec {
    numaNodes = numaNodes == null ? List.of() : List.copyOf(numaNodes);
    pcie = pcie == null ? List.of() : List.copyOf(pcie);
    devices = devices == null ? List.of() : List.copyOf(devices);
  }

  /**
   * Counts for the printer columns.
   *
   * @param gpus number of GPUs
   * @param hcas number of HCAs
   * @param switches number of PCIe switches (upstream ports)
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Summary(int gpus, int hcas, int switches) {}
}
