package dev.tandem.agent.audit;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.kubelet.podresources.ClaimDevice;
import dev.tandem.kubelet.podresources.PodDevices;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One pod's DRA devices as allocation entries: per claim and resource, the tree's ids of the
 * devices they stand for ({@link ClaimDeviceMapping}); a device that stands for none is listed
 * under its driver's name as {@code driver/pool/device}, not governed by Tandem. A claim the
 * kubelet lists for several containers is listed once, under the first. Pure.
 */
final class ClaimEntries {

  private final PodFacts facts;
  private final ClaimDeviceMapping mapping;
  private final ResourceNames resources;

  /**
   * @param facts the pod's object; null when not known yet
   * @param mapping the node's mapping; null when discovery has not succeeded yet
   */
  ClaimEntries(PodFacts facts, ClaimDeviceMapping mapping, ResourceNames resources) {
    this.facts = facts;
    this.mapping = mapping;
    this.resources = resources;
  }

  private record Group(String container, String claim, String resource, String driver) {}

  /**
   * Adds the pod's claim entries to {@code out}, notes Tandem's devices that stand for no device of
   * the tree, and returns the GPUs and HCAs of the tree the pod holds through claims.
   */
  List<Device> add(List<PodDevices> containers, List<AllocationEntry> out, List<String> notes) {
    Map<Group, List<String>> groups = new LinkedHashMap<>();
    Set<String> seen = new HashSet<>();
    List<Device> held = new ArrayList<>();
    for (PodDevices c : containers) {
      for (ClaimDevice d : c.claims()) {
        if (!seen.add(d.claim() + "\u0000" + ClaimDeviceMapping.key(d))) {
          continue;
        }
        Device device = mapping == null ? null : mapping.device(d).orElse(null);
        if (device != null && device.kind() != DeviceKind.GPU && device.kind() != DeviceKind.HCA) {
          device = null;
        }
        if (device != null) {
          held.add(device);
        } else if (mapping != null && mapping.isTandems(d)) {
          notes.add(unknown(c, d));
        }
        String resource =
            device == null
                ? d.driver()
                : device.kind() == DeviceKind.GPU ? resources.gpu() : resources.hca();
        groups
            .computeIfAbsent(
                new Group(c.container(), d.claim(), resource, d.driver()), g -> new ArrayList<>())
            .add(device == null ? ClaimDeviceMapping.key(d) : device.id());
      }
    }
    String uid = facts == null ? "" : facts.uid();
    PodDevices first = containers.get(0);
    groups.forEach(
        (g, ids) ->
            out.add(
                new AllocationEntry(
                    uid,
                    first.namespace(),
                    first.pod(),
                    g.container(),
                    g.resource(),
                    ids,
                    true,
                    g.claim(),
                    g.driver())));
    return held;
  }

  private static String unknown(PodDevices c, ClaimDevice d) {
    return "pod "
        + PodFacts.key(c.namespace(), c.pod())
        + " holds DRA device "
        + ClaimDeviceMapping.key(d)
        + " of claim "
        + d.claim()
        + ", which is not in this node's topology; its alignment is not audited (is the"
        + " agent's --dra-driver-name the driver's, and does the driver run on this node?)";
  }
}
