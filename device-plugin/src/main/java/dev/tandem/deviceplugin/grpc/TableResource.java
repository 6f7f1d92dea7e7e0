package dev.tandem.deviceplugin.grpc;

import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.vertx.core.Future;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A resource served from a device table: {@code rdma/hca} from the HCA table, and in joint mode
 * {@code nvidia.com/gpu} from the GPU table. Preferred allocations come from hints alone or from
 * the joint state; {@code allocated} is told what each Allocate gave out (the joint state records
 * it; a no-op otherwise).
 */
public final class TableResource implements ServedResource {

  private final String resourceName;
  private final String noun;
  private final DeviceListing table;
  private final Function<AllocateRequest, AllocateResponse> allocate;
  private final Function<PreferredAllocationRequest, Future<PreferredAllocationResponse>> preferred;
  private final Consumer<AllocateRequest> allocated;

  /**
   * @param noun what the devices are called in the log ("devices", "GPUs")
   * @param allocate the Allocate answer, throwing {@link
   *     dev.tandem.deviceplugin.allocate.AllocationException}
   */
  public TableResource(
      String resourceName,
      String noun,
      DeviceListing table,
      Function<AllocateRequest, AllocateResponse> allocate,
      Function<PreferredAllocationRequest, Future<PreferredAllocationResponse>> preferred,
      Consumer<AllocateRequest> allocated) {
    this.resourceName = resourceName;
    this.noun = noun;
    this.table = table;
    this.allocate = allocate;
    this.preferred = preferred;
    this.allocated = allocated;
  }

  @Override
  public String resourceName() {
    return resourceName;
  }

  @Override
  public ListAndWatchResponse list() {
    return table.list();
  }

  @Override
  public Runnable onChange(Consumer<ListAndWatchResponse> listener) {
    return table.onChange(listener);
  }

  @Override
  public Future<PreferredAllocationResponse> preferred(PreferredAllocationRequest request) {
    return preferred.apply(request);
  }

  @Override
  public AllocateResponse allocate(AllocateRequest request) {
    AllocateResponse r = allocate.apply(request);
    allocated.accept(request);
    return r;
  }

  @Override
  public String describe() {
    return table.list().getDevicesCount()
        + " "
        + noun
        + ", "
        + table.healthyIds().size()
        + " healthy";
  }
}
