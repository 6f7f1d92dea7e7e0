package dev.tandem.api.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * HCA attributes as published.
 *
 * @param ibDevice ibverbs name, e.g. {@code mlx5_0}
 * @param linkLayer {@code InfiniBand} or {@code Ethernet}
 * @param portState e.g. {@code ACTIVE}
 * @param rate e.g. {@code 400 Gb/sec (4X NDR)}
 * @param nodeGuid e.g. {@code b83f:d203:00a1:1b2c}
 * @param netdevs network interfaces
 * @param uverbs uverbs character device name
 * @param virtualFunction true for an SR-IOV VF
 * @param physicalFunction PCI address of the PF of a VF
 * @param dataDirect PCI address of the HCA's Data Direct function, where the HCA is placed in the
 *     tree (its own PCI address stays the device's {@code address}); absent when it has none
 * @param rail the fabric rail the HCA is cabled to; absent when it has none (docs/rails.md)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record HcaEntry(
    String ibDevice,
    String linkLayer,
    String portState,
    String rate,
    String nodeGuid,
    List<String> netdevs,
    String uverbs,
    boolean virtualFunction,
    String physicalFunction,
    String dataDirect,
    Integer rail) {

  public HcaEntry {
    netdevs = netdevs == null ? List.of() : List.copyOf(netdevs);
  }
}
