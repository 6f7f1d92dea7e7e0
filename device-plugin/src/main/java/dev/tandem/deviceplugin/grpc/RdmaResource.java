package dev.tandem.deviceplugin.grpc;

import dev.tandem.deviceplugin.allocate.AllocateResponder;
import dev.tandem.deviceplugin.api.AllocateRequest;
import dev.tandem.deviceplugin.api.AllocateResponse;
import dev.tandem.deviceplugin.api.ListAndWatchResponse;
import dev.tandem.deviceplugin.api.PreferredAllocationRequest;
import dev.tandem.deviceplugin.api.PreferredAllocationResponse;
import dev.tandem.deviceplugin.inventory.DeviceTable;
import io.vertx.core.Future;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The HCA resource ({@code rdma/hca} by default): the device table, its Allocate answers, and a
 * preferred-allocation answerer (hints alone, or the joint state in joint mode). {@code allocated}
 * is told what each Allocate gave out (the joint state records it; a no-op otherwise).
 */
public final class RdmaResource implements ServedResource {

  private final DeviceTable table;
  private final AllocateResponder allocate;
  private final Function<PreferredAllocationRequest, Future<PreferredAllocationResponse>> preferred;
  private final Consumer<AllocateRequest> allocated;

  public RdmaResource(DeviceTable table,
      Function<PreferredAllocationRequest, Future<PreferredAllocationResponse>> preferred,
      Consumer<AllocateRequest> allocated) {
    this.table = table;
    this.allocate = new AllocateResponder(table);
    this.preferred = preferred;
    this.allocated = allocated;
  }

  @Override
  public String resourceName() {
    return table.inventory().config().resourceName();
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
    AllocateResponse r = allocate.allocate(request);
    allocated.accept(request);
    return r;
  }

  @Override
  public String describe() {
    return table.inventory().devices().size() + " devices, " + table.healthyIds().size() + " healthy";
  }
}
