package dev.tandem.deviceplugin.allocate;

import dev.tandem.deviceplugin.inventory.PluginDevice;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The environment a container gets for its HCAs, listing each HCA once, in the order chosen:
 *
 * <ul>
 *   <li>{@code NCCL_IB_HCA=<ibdev>,<ibdev>} prefixed with {@code =} (NCCL's exact-match form, so
 *       {@code mlx5_1} does not also select {@code mlx5_10});
 *   <li>{@code UCX_NET_DEVICES=<ibdev>:1,…} (UCX wants device:port; port 1);
 *   <li>{@code TANDEM_RDMA_DEVICES=<ibdev>,…} plain ibverbs names;
 *   <li>{@code TANDEM_RDMA_DEVICE_IDS=<id>,…} the kubelet device ids allocated.
 * </ul>
 */
public final class RdmaEnvironment {

  public static final String NCCL_IB_HCA = "NCCL_IB_HCA";
  public static final String UCX_NET_DEVICES = "UCX_NET_DEVICES";
  public static final String TANDEM_RDMA_DEVICES = "TANDEM_RDMA_DEVICES";
  public static final String TANDEM_RDMA_DEVICE_IDS = "TANDEM_RDMA_DEVICE_IDS";

  private RdmaEnvironment() {}

  public static Map<String, String> of(List<PluginDevice> devices) {
    List<String> hcas = devices.stream().map(PluginDevice::ibDevice).distinct().toList();
    Map<String, String> env = new LinkedHashMap<>();
    env.put(NCCL_IB_HCA, "=" + String.join(",", hcas));
    env.put(UCX_NET_DEVICES, hcas.stream().map(h -> h + ":1").collect(Collectors.joining(",")));
    env.put(TANDEM_RDMA_DEVICES, String.join(",", hcas));
    env.put(
        TANDEM_RDMA_DEVICE_IDS,
        devices.stream().map(PluginDevice::id).collect(Collectors.joining(",")));
    return env;
  }
}
