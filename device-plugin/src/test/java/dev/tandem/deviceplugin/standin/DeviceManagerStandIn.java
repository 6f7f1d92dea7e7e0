package dev.tandem.deviceplugin.standin;

import dev.tandem.deviceplugin.preferred.HeldDevices;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.Device;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The kubelet's device manager as shared/PROTOCOLS.md §3.8 describes it, without a Topology Manager
 * hint: per container, the resources in random order (a Go map walk); per resource, {@code
 * available} = healthy − in use in random (set) order, GetPreferredAllocation when the resource's
 * plugin offers it, the answer ∩ available then filled in set order, then Allocate. Resources
 * served by a plugin without preferred allocation (the GPU stub of hint mode) are chosen in set
 * order alone. What each container holds is what PodResources reports.
 */
public final class DeviceManagerStandIn {

  private final KubeletStandIn kubelet;
  private final Random random;
  private final Map<String, List<String>> healthy = new HashMap<>();
  private final Map<String, Set<String>> inUse = new HashMap<>();
  private final Set<String> viaPlugin = new HashSet<>();
  private final Set<String> allocateViaPlugin = new HashSet<>();
  private final List<HeldDevices> holdings = new CopyOnWriteArrayList<>();

  public DeviceManagerStandIn(KubeletStandIn kubelet, long seed) {
    this.kubelet = kubelet;
    this.random = new Random(seed);
  }

  /**
   * A resource served by a registered plugin (GetPreferredAllocation and Allocate over its socket).
   */
  public DeviceManagerStandIn plugin(String resource, ListAndWatchResponse list) {
    devices(resource, list);
    viaPlugin.add(resource);
    allocateViaPlugin.add(resource);
    return this;
  }

  /** A resource whose plugin has no preferred allocation: the kubelet's set order decides. */
  public DeviceManagerStandIn stub(String resource, List<String> ids) {
    healthy.put(resource, List.copyOf(ids));
    inUse.put(resource, new HashSet<>());
    return this;
  }

  private void devices(String resource, ListAndWatchResponse list) {
    healthy.put(
        resource,
        list.getDevicesList().stream()
            .filter(d -> "Healthy".equals(d.getHealth()))
            .map(Device::getID)
            .toList());
    inUse.put(resource, new HashSet<>());
  }

  public PodResourcesSource podResources() {
    return () -> Future.succeededFuture(List.copyOf(holdings));
  }

  /** Admits one container in a random resource order; returns the devices per resource. */
  public Map<String, List<String>> admit(
      String namespace, String pod, String container, Map<String, Integer> limits) {
    List<String> order = new ArrayList<>(new TreeMap<>(limits).keySet());
    Collections.shuffle(order, random);
    return admit(namespace, pod, container, limits, order);
  }

  /** Admits one container, resources in the given order. */
  public Map<String, List<String>> admit(
      String namespace,
      String pod,
      String container,
      Map<String, Integer> limits,
      List<String> order) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String resource : order) {
      int size = limits.get(resource);
      List<String> available = new ArrayList<>(healthy.get(resource));
      available.removeAll(inUse.get(resource));
      Collections.shuffle(available, random);
      Set<String> chosen = new LinkedHashSet<>();
      if (viaPlugin.contains(resource)) {
        List<String> preferred =
            kubelet
                .preferred(
                    resource,
                    PreferredAllocationRequest.newBuilder()
                        .addContainerRequests(
                            ContainerPreferredAllocationRequest.newBuilder()
                                .addAllAvailableDeviceIDs(available)
                                .setAllocationSize(size))
                        .build())
                .getContainerResponses(0)
                .getDeviceIDsList();
        preferred.stream().filter(available::contains).limit(size).forEach(chosen::add);
      }
      for (String id : available) {
        if (chosen.size() >= size) {
          break;
        }
        chosen.add(id);
      }
      if (allocateViaPlugin.contains(resource)) {
        kubelet.allocate(
            resource,
            AllocateRequest.newBuilder()
                .addContainerRequests(
                    ContainerAllocateRequest.newBuilder().addAllDevicesIds(chosen))
                .build());
      }
      inUse.get(resource).addAll(chosen);
      holdings.add(new HeldDevices(namespace, pod, container, resource, List.copyOf(chosen)));
      out.put(resource, List.copyOf(chosen));
    }
    return out;
  }

  /** The devices of a resource held by containers now. */
  public Set<String> inUse(String resource) {
    return Set.copyOf(inUse.get(resource));
  }

  /** The pod is gone: its devices are free again. */
  public void release(String namespace, String pod) {
    for (HeldDevices h : holdings) {
      if (h.namespace().equals(namespace) && h.pod().equals(pod)) {
        inUse.get(h.resource()).removeAll(h.deviceIds());
        holdings.remove(h);
      }
    }
  }
}
