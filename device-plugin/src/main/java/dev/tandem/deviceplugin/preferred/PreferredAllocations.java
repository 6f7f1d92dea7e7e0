package dev.tandem.deviceplugin.preferred;

import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers GetPreferredAllocation: for each container request, the hint ({@link HintFinder}) and the
 * choice ({@link PreferredChooser}). Never fails for lack of a hint; logs which hint was used and
 * why.
 */
public final class PreferredAllocations {

  private static final Logger LOG = LoggerFactory.getLogger(PreferredAllocations.class);

  private final HintFinder hints;
  private final PreferredChooser chooser;

  public PreferredAllocations(HintFinder hints, PreferredChooser chooser) {
    this.hints = hints;
    this.chooser = chooser;
  }

  public Future<PreferredAllocationResponse> answer(PreferredAllocationRequest request) {
    List<Future<ContainerPreferredAllocationResponse>> each = new ArrayList<>();
    for (ContainerPreferredAllocationRequest c : request.getContainerRequestsList()) {
      each.add(container(c));
    }
    return Future.all(each)
        .map(
            all -> {
              PreferredAllocationResponse.Builder b = PreferredAllocationResponse.newBuilder();
              each.forEach(f -> b.addContainerResponses(f.result()));
              return b.build();
            });
  }

  private Future<ContainerPreferredAllocationResponse> container(
      ContainerPreferredAllocationRequest c) {
    int size = c.getAllocationSize();
    return hints
        .find(size)
        .recover(e -> Future.succeededFuture(Hint.none("hint lookup failed: " + e)))
        .map(
            hint -> {
              List<String> ids =
                  chooser.choose(
                      c.getAvailableDeviceIDsList(), c.getMustIncludeDeviceIDsList(), size, hint);
              LOG.info(
                  "preferred {} of {} available: {} (hint {}: {})",
                  size,
                  c.getAvailableDeviceIDsCount(),
                  ids,
                  hint.source().name().toLowerCase(),
                  hint.why());
              return ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(ids).build();
            });
  }
}
