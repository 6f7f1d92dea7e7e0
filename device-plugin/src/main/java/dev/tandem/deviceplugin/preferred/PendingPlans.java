package dev.tandem.deviceplugin.preferred;

import io.vertx.core.Future;
import java.util.List;

/** Pods pending on a node that carry a {@code tandem.dev/plan} annotation. */
@FunctionalInterface
public interface PendingPlans {

  Future<List<PlannedPod>> pending(String nodeName);
}
