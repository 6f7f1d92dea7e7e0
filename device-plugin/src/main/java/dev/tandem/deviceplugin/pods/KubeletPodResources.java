package dev.tandem.deviceplugin.pods;

import dev.tandem.deviceplugin.preferred.HeldDevices;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.kubelet.podresources.PodDevices;
import dev.tandem.kubelet.podresources.PodResourcesClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The kubelet's PodResources List through the agent's client ({@code :authority: localhost}). */
public final class KubeletPodResources implements PodResourcesSource {

  private final PodResourcesClient client;

  public KubeletPodResources(Vertx vertx, Path socket, Duration timeout) {
    this.client = PodResourcesClient.create(vertx, socket, timeout);
  }

  @Override
  public Future<List<HeldDevices>> list() {
    return client.list().map(KubeletPodResources::flatten);
  }

  static List<HeldDevices> flatten(List<PodDevices> pods) {
    List<HeldDevices> out = new ArrayList<>();
    for (PodDevices p : pods) {
      for (Map.Entry<String, List<String>> e : p.devices().entrySet()) {
        out.add(new HeldDevices(p.namespace(), p.pod(), p.container(), e.getKey(), e.getValue()));
      }
    }
    return out;
  }

  public Future<Void> close() {
    return client.close();
  }
}
