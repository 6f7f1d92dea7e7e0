package dev.tandem.deviceplugin.inventory;

import dev.tandem.deviceplugin.grpc.DeviceListing;
import dev.tandem.kubelet.deviceplugin.AdvertisedDevice;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The devices with their current health and uverbs character devices. Readers get immutable
 * snapshots; a change of health is pushed to every listener (the open ListAndWatch streams) as the
 * full list.
 */
public final class DeviceTable implements DeviceListing {

  public static final String HEALTHY = AdvertisedDevice.HEALTHY;
  public static final String UNHEALTHY = AdvertisedDevice.UNHEALTHY;

  private final Inventory inventory;
  private final List<Consumer<ListAndWatchResponse>> listeners = new CopyOnWriteArrayList<>();
  private volatile Map<String, Boolean> healthByIbdev;
  private volatile Map<String, String> uverbsByIbdev = Map.of();
  private volatile ListAndWatchResponse list;

  public DeviceTable(Inventory inventory) {
    this.inventory = inventory;
    Map<String, Boolean> initial = new HashMap<>();
    inventory
        .hcas()
        .forEach(h -> initial.put(h.hca().ibDevice(), h.healthy() && h.hca().portUsable()));
    this.healthByIbdev = Map.copyOf(initial);
    this.list = render();
  }

  public Inventory inventory() {
    return inventory;
  }

  public ListAndWatchResponse list() {
    return list;
  }

  public boolean healthy(PluginDevice device) {
    return healthByIbdev.getOrDefault(device.ibDevice(), false);
  }

  public Optional<String> uverbs(String ibDevice) {
    return Optional.ofNullable(uverbsByIbdev.get(ibDevice));
  }

  /** Ids of the devices that are healthy now. */
  public List<String> healthyIds() {
    return inventory.devices().stream().filter(this::healthy).map(PluginDevice::id).toList();
  }

  /** Registers a listener for full lists after each health change; returns its remover. */
  public Runnable onChange(Consumer<ListAndWatchResponse> listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /**
   * Records what a health check read; notifies the listeners when any device's health changed.
   *
   * @return the ibverbs names whose health changed
   */
  public synchronized List<String> update(Map<String, Boolean> health, Map<String, String> uverbs) {
    this.uverbsByIbdev = Map.copyOf(uverbs);
    List<String> changed =
        health.entrySet().stream()
            .filter(e -> !e.getValue().equals(healthByIbdev.get(e.getKey())))
            .map(Map.Entry::getKey)
            .sorted()
            .toList();
    if (changed.isEmpty()) {
      return changed;
    }
    Map<String, Boolean> next = new HashMap<>(healthByIbdev);
    next.putAll(health);
    this.healthByIbdev = Map.copyOf(next);
    this.list = render();
    listeners.forEach(l -> l.accept(list));
    return changed;
  }

  private ListAndWatchResponse render() {
    ListAndWatchResponse.Builder b = ListAndWatchResponse.newBuilder();
    for (PluginDevice d : inventory.devices()) {
      b.addDevices(AdvertisedDevice.of(d.id(), healthy(d), d.numaNode()));
    }
    return b.build();
  }
}
