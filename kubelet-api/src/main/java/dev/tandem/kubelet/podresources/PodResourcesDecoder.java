package dev.tandem.kubelet.podresources;

import dev.tandem.kubelet.podresources.v1.AllocatableResourcesResponse;
import dev.tandem.kubelet.podresources.v1.ClaimResource;
import dev.tandem.kubelet.podresources.v1.ContainerDevices;
import dev.tandem.kubelet.podresources.v1.ContainerResources;
import dev.tandem.kubelet.podresources.v1.DynamicResource;
import dev.tandem.kubelet.podresources.v1.ListPodResourcesResponse;
import dev.tandem.kubelet.podresources.v1.PodResources;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns PodResources messages into plain records. The kubelet sends one {@code ContainerDevices}
 * entry per device id and NUMA node, in random order; entries are merged per resource here. DRA
 * devices ({@code dynamic_resources}) are kept per claim and device, in the kubelet's order.
 */
final class PodResourcesDecoder {

  private PodResourcesDecoder() {}

  static List<PodDevices> pods(ListPodResourcesResponse response) {
    List<PodDevices> out = new ArrayList<>();
    for (PodResources pod : response.getPodResourcesList()) {
      for (ContainerResources c : pod.getContainersList()) {
        out.add(
            new PodDevices(
                pod.getNamespace(),
                pod.getName(),
                c.getName(),
                byResource(c.getDevicesList()),
                claims(c.getDynamicResourcesList())));
      }
    }
    return out;
  }

  static List<AllocatableDevice> allocatable(AllocatableResourcesResponse response) {
    Map<String, SortedSet<Integer>> numa = new TreeMap<>();
    Map<String, String> resourceOf = new LinkedHashMap<>();
    for (ContainerDevices d : response.getDevicesList()) {
      for (String id : d.getDeviceIdsList()) {
        String key = d.getResourceName() + "\u0000" + id;
        resourceOf.put(key, d.getResourceName());
        SortedSet<Integer> nodes = numa.computeIfAbsent(key, k -> new TreeSet<>());
        d.getTopology().getNodesList().forEach(n -> nodes.add((int) n.getID()));
      }
    }
    List<AllocatableDevice> out = new ArrayList<>();
    numa.forEach(
        (key, nodes) ->
            out.add(
                new AllocatableDevice(
                    resourceOf.get(key),
                    key.substring(key.indexOf('\u0000') + 1),
                    List.copyOf(nodes))));
    return out;
  }

  private static List<ClaimDevice> claims(List<DynamicResource> resources) {
    List<ClaimDevice> out = new ArrayList<>();
    for (DynamicResource r : resources) {
      for (ClaimResource d : r.getClaimResourcesList()) {
        out.add(
            new ClaimDevice(
                r.getClaimNamespace(),
                r.getClaimName(),
                d.getDriverName(),
                d.getPoolName(),
                d.getDeviceName()));
      }
    }
    return out;
  }

  private static Map<String, List<String>> byResource(List<ContainerDevices> entries) {
    Map<String, SortedSet<String>> ids = new TreeMap<>();
    for (ContainerDevices d : entries) {
      ids.computeIfAbsent(d.getResourceName(), r -> new TreeSet<>()).addAll(d.getDeviceIdsList());
    }
    Map<String, List<String>> out = new TreeMap<>();
    ids.forEach((r, set) -> out.put(r, List.copyOf(set)));
    return out;
  }
}
