package dev.tandem.deviceplugin.preferred;

import io.vertx.core.Future;
import java.util.List;

/** The kubelet's PodResources List, flattened: every container's devices per resource. */
@FunctionalInterface
public interface PodResourcesSource {

  Future<List<HeldDevices>> list();
}
