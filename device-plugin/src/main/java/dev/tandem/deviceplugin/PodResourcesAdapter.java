package dev.tandem.deviceplugin;

import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects the plugin to the kubelet's PodResources List through the agent's client.
 * TODO(device-plugin): wire dev.tandem.agent.podresources.PodResourcesClient when it lands.
 */
final class PodResourcesAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(PodResourcesAdapter.class);

  private PodResourcesAdapter() {}

  static PodResourcesSource create(Vertx vertx, Path socket) {
    LOG.info("PodResources lookup not available in this build: preferred allocations follow plans, not held GPUs");
    return null;
  }
}
