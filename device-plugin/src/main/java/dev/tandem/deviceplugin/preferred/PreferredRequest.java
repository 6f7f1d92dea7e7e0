package dev.tandem.deviceplugin.preferred;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One container's question to a {@link PreferredPolicy}: of the {@code available} devices of a
 * resource, which {@code size} to give it, keeping the {@code mustInclude} ones (the kubelet
 * reusing devices an ended init container held). The domain form of the kubelet's
 * ContainerPreferredAllocationRequest, which the gRPC edge maps to it.
 *
 * @param side the resource asked for
 * @param available the device ids offered, in the kubelet's order
 * @param mustInclude the ids the answer must keep (a subset of {@code available})
 * @param size how many ids the answer holds
 */
public record PreferredRequest(
    Side side, List<String> available, List<String> mustInclude, int size) {

  public PreferredRequest {
    available = List.copyOf(available);
    mustInclude = List.copyOf(mustInclude);
  }

  /** The kubelet's own choice: the must-include ids, then the available ones in order. */
  public List<String> kubeletOrder() {
    Set<String> out = new LinkedHashSet<>(mustInclude);
    for (String id : available) {
      if (out.size() >= size) {
        break;
      }
      out.add(id);
    }
    return List.copyOf(out);
  }
}
