package dev.tandem.discovery;

import dev.tandem.topology.model.PciAddress;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which ConnectX-8 Data Direct function (PCI {@code 15b3:2100}) serves which mlx5 device, as
 * libmlx5's {@code mlx5dv_get_data_direct_sysfs_path} reports it (rdma-core 54 and later, {@code
 * providers/mlx5/man/mlx5dv_get_data_direct_sysfs_path.3.md}), or why that could not be asked.
 *
 * <p>Nothing else ties them for an unprivileged reader: the kernel matches the two by VUID, the
 * function's from its PCI VPD and the mlx5 device's from a firmware command ({@code
 * drivers/infiniband/hw/mlx5/data_direct.c}, {@code mlx5_ib_data_direct_init} in {@code main.c}),
 * and sysfs shows the VPD to root only and no link between them.
 *
 * @param byIbDevice the Data Direct function of each ibverbs device that has one
 * @param unavailable why libmlx5 could not be asked (library or symbol missing); null when it was
 */
public record DataDirectTies(Map<String, PciAddress> byIbDevice, String unavailable) {

  public DataDirectTies {
    byIbDevice = Map.copyOf(byIbDevice);
  }

  /** The ties libmlx5 reported. */
  public static DataDirectTies of(Map<String, PciAddress> byIbDevice) {
    return new DataDirectTies(new TreeMap<>(byIbDevice), null);
  }

  /** No ties, because libmlx5 could not be asked, for this reason. */
  public static DataDirectTies unavailable(String reason) {
    return new DataDirectTies(Map.of(), reason);
  }
}
