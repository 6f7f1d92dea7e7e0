package dev.tandem.deviceplugin.resource;

import dev.tandem.kubelet.deviceplugin.AdvertisedDevice;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * One resource's devices with their current health. Readers get immutable snapshots; a change of
 * health is pushed to every listener (the open ListAndWatch streams) as the full list.
 */
public final class DeviceTable {

  private final ResourceDevices devices;
  private volatile List<OfferedDevice> offered;
  private volatile long generation;
  private final List<Consumer<ListAndWatchResponse>> listeners = new CopyOnWriteArrayList<>();
  private volatile Map<String, Boolean> health;
  private volatile ListAndWatchResponse list;

  public DeviceTable(ResourceDevices devices) {
    this.devices = devices;
    this.offered = List.copyOf(devices.offered());
    this.health = Map.copyOf(devices.discoveredHealth());
    this.list = render();
  }

  public ResourceDevices devices() {
    return devices;
  }

  public ListAndWatchResponse list() {
    return list;
  }

  /** Ids of all the devices, in ListAndWatch order. */
  public List<String> ids() {
    return offered.stream().map(OfferedDevice::id).toList();
  }

  /** Ids of the devices that are healthy now. */
  public List<String> healthyIds() {
    return offered.stream().filter(this::healthy).map(OfferedDevice::id).toList();
  }

  /** Registers a listener for full lists after each health change; returns its remover. */
  public Runnable onChange(Consumer<ListAndWatchResponse> listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** Counts the changes of the offered device set (a rescan found other devices). */
  public long generation() {
    return generation;
  }

  /**
   * Records a health reading, taking the devices offered now (a rescan may have changed them);
   * notifies the listeners when the devices or any device's health changed.
   *
   * @return the health keys whose health changed
   */
  public synchronized List<String> update(Map<String, Boolean> reading) {
    List<OfferedDevice> now = List.copyOf(devices.offered());
    boolean reoffered = !now.equals(offered);
    if (reoffered) {
      offered = now;
      generation++;
    }
    List<String> changed =
        reading.entrySet().stream()
            .filter(e -> !e.getValue().equals(health.get(e.getKey())))
            .map(Map.Entry::getKey)
            .sorted()
            .toList();
    if (changed.isEmpty() && !reoffered) {
      return changed;
    }
    Map<String, Boolean> next = new HashMap<>(health);
    next.putAll(reading);
    this.health = Map.copyOf(next);
    this.list = render();
    listeners.forEach(l -> l.accept(list));
    return changed;
  }

  private boolean healthy(OfferedDevice d) {
    return health.getOrDefault(d.healthKey(), false);
  }

  private ListAndWatchResponse render() {
    ListAndWatchResponse.Builder b = ListAndWatchResponse.newBuilder();
    for (OfferedDevice d : offered) {
      b.addDevices(AdvertisedDevice.of(d.id(), healthy(d), d.numaNode()));
    }
    return b.build();
  }
}
