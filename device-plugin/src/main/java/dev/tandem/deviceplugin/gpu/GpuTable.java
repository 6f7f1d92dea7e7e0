package dev.tandem.deviceplugin.gpu;

import dev.tandem.deviceplugin.grpc.DeviceListing;
import dev.tandem.kubelet.deviceplugin.AdvertisedDevice;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The node's full GPUs as {@code nvidia.com/gpu} devices (id = the GPU's UUID, as NVIDIA's plugin
 * names them), with health and NUMA node. A change of health is pushed to the listeners as the full
 * list.
 */
public final class GpuTable implements DeviceListing {

  private final Machine machine;
  private final List<Device> gpus;
  private final List<Consumer<ListAndWatchResponse>> listeners = new CopyOnWriteArrayList<>();
  private volatile Map<String, Boolean> health;
  private volatile ListAndWatchResponse list;

  public GpuTable(Machine machine) {
    this.machine = machine;
    this.gpus = machine.gpus();
    Map<String, Boolean> initial = new HashMap<>();
    gpus.forEach(g -> initial.put(g.id(), g.healthy()));
    this.health = Map.copyOf(initial);
    this.list = render();
  }

  public Machine machine() {
    return machine;
  }

  public List<Device> gpus() {
    return gpus;
  }

  public Optional<Device> gpu(String id) {
    return gpus.stream().filter(g -> g.id().equals(id)).findFirst();
  }

  public boolean healthy(String id) {
    return health.getOrDefault(id, false);
  }

  public List<String> healthyIds() {
    return gpus.stream().map(Device::id).filter(this::healthy).toList();
  }

  public ListAndWatchResponse list() {
    return list;
  }

  public Runnable onChange(Consumer<ListAndWatchResponse> listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /**
   * Records a health reading; returns the GPU ids whose health changed (listeners told when any).
   */
  public synchronized List<String> update(Map<String, Boolean> reading) {
    List<String> changed =
        reading.entrySet().stream()
            .filter(e -> !e.getValue().equals(health.get(e.getKey())))
            .map(Map.Entry::getKey)
            .sorted()
            .toList();
    if (!changed.isEmpty()) {
      Map<String, Boolean> next = new HashMap<>(health);
      next.putAll(reading);
      health = Map.copyOf(next);
      list = render();
      listeners.forEach(l -> l.accept(list));
    }
    return changed;
  }

  private ListAndWatchResponse render() {
    ListAndWatchResponse.Builder b = ListAndWatchResponse.newBuilder();
    for (Device g : gpus) {
      b.addDevices(AdvertisedDevice.of(g.id(), healthy(g.id()), g.numaNode()));
    }
    return b.build();
  }
}
