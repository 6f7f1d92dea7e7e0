package dev.tandem.dra.publish;

import dev.tandem.dra.slices.NodePool;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceListBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * A pool's ResourceSlices as the driver writes them at its first publication (pool generation 1),
 * without the Node owner the API server's copy gets: for tools that put a node's slices in a
 * cluster themselves (the scheduling-throughput benchmark's fake nodes, {@code dra-driver.jar
 * slices}).
 */
public final class PoolSlices {

  private PoolSlices() {}

  /** Every slice of {@code pool}, in order. */
  public static ResourceSliceList of(NodePool pool) {
    List<ResourceSlice> items = new ArrayList<>();
    for (int i = 0; i < pool.slices().size(); i++) {
      items.add(SliceContent.slice(pool, i, 1));
    }
    return new ResourceSliceListBuilder().withItems(items).build();
  }
}
