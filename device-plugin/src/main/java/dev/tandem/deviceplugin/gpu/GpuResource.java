package dev.tandem.deviceplugin.gpu;

import dev.tandem.deviceplugin.api.AllocateRequest;
import dev.tandem.deviceplugin.api.AllocateResponse;
import dev.tandem.deviceplugin.api.ListAndWatchResponse;
import dev.tandem.deviceplugin.api.PreferredAllocationRequest;
import dev.tandem.deviceplugin.api.PreferredAllocationResponse;
import dev.tandem.deviceplugin.grpc.ServedResource;
import io.vertx.core.Future;
import java.util.function.Consumer;
import java.util.function.Function;

/** The GPU resource of joint mode ({@code nvidia.com/gpu}): table, Allocate, joint preferred allocation. */
public final class GpuResource implements ServedResource {

  private final String resourceName;
  private final GpuTable table;
  private final GpuAllocateResponder allocate;
  private final Function<PreferredAllocationRequest, Future<PreferredAllocationResponse>> preferred;
  private final Consumer<AllocateRequest> allocated;

  public GpuResource(String resourceName, GpuTable table, boolean cdi,
      Function<PreferredAllocationRequest, Future<PreferredAllocationResponse>> preferred,
      Consumer<AllocateRequest> allocated) {
    this.resourceName = resourceName;
    this.table = table;
    this.allocate = new GpuAllocateResponder(table, cdi);
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
    AllocateResponse r = allocate.allocate(request);
    allocated.accept(request);
    return r;
  }

  @Override
  public String describe() {
    return table.gpus().size() + " GPUs, " + table.healthyIds().size() + " healthy";
  }
}
