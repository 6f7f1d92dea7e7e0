package dev.tandem.deviceplugin.grpc;

import dev.tandem.deviceplugin.allocate.AllocationException;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.vertx.core.Future;
import java.util.function.Consumer;

/**
 * One extended resource served on one socket: {@code rdma/hca}, and in joint mode also {@code
 * nvidia.com/gpu}. {@link PluginServer} and the lifecycle serve any of them the same way.
 */
public interface ServedResource {

  /** The extended resource registered, e.g. {@code rdma/hca}. */
  String resourceName();

  /** The full device list with health, as ListAndWatch sends it. */
  ListAndWatchResponse list();

  /** Registers a listener for full lists after each health change; returns its remover. */
  Runnable onChange(Consumer<ListAndWatchResponse> listener);

  Future<PreferredAllocationResponse> preferred(PreferredAllocationRequest request);

  /**
   * The answer once the devices are handed out; fails with an {@link AllocationException} naming
   * unknown devices or what is missing, or another exception when the hand-off failed.
   */
  Future<AllocateResponse> allocate(AllocateRequest request);

  /** For the log: how many devices, how many healthy. */
  String describe();
}
