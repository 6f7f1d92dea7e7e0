package dev.tandem.deviceplugin.allocate;

import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Answers Allocate for one resource: per container request, in order, the resource's {@link
 * ContainerAnswer}, after checking that the plugin offers every id asked for. Pure.
 */
public final class AllocateResponder {

  /** How many unknown ids an error names. */
  static final int UNKNOWN_NAMED = 8;

  /** How much of an id an error shows. */
  static final int ID_SHOWN = 80;

  private final String node;
  private final String idNoun;
  private final List<String> offered;
  private final Set<String> known;
  private final int listedAtMost;
  private final ContainerAnswer answer;

  /**
   * @param idNoun what an id is called in an error, e.g. {@code GPU id}
   * @param offered the ids the plugin offers, in order
   * @param listedAtMost how many offered ids an error lists before it abbreviates them
   */
  public AllocateResponder(
      String node, String idNoun, List<String> offered, int listedAtMost, ContainerAnswer answer) {
    this.node = node;
    this.idNoun = idNoun;
    this.offered = List.copyOf(offered);
    this.known = Set.copyOf(offered);
    this.listedAtMost = listedAtMost;
    this.answer = answer;
  }

  /**
   * @throws AllocationException naming unknown devices or what is missing
   */
  public AllocateResponse allocate(AllocateRequest request) {
    AllocateResponse.Builder out = AllocateResponse.newBuilder();
    for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
      out.addContainerResponses(container(c.getDevicesIdsList()));
    }
    return out.build();
  }

  private ContainerAllocateResponse container(List<String> ids) {
    List<String> unknown = new ArrayList<>();
    for (String id : ids) {
      if (!known.contains(id)) {
        unknown.add(id);
      }
    }
    if (!unknown.isEmpty()) {
      throw new AllocationException(
          "unknown "
              + idNoun
              + (unknown.size() == 1 ? " " : "s ")
              + named(unknown)
              + " on node "
              + node
              + "; this plugin offers "
              + describeOffered());
    }
    return answer.answer(ids);
  }

  /**
   * The first {@link #UNKNOWN_NAMED} unknown ids, each cut at {@link #ID_SHOWN} characters, and how
   * many more: the message travels in a gRPC trailer and the kubelet logs it whole, while a request
   * may carry thousands of ids of any length.
   */
  private static String named(List<String> unknown) {
    StringBuilder b = new StringBuilder();
    for (String id : unknown.subList(0, Math.min(UNKNOWN_NAMED, unknown.size()))) {
      b.append(b.length() == 0 ? "" : ", ")
          .append(
              id.length() <= ID_SHOWN
                  ? id
                  : id.substring(0, ID_SHOWN) + "… (" + id.length() + " characters)");
    }
    int more = unknown.size() - UNKNOWN_NAMED;
    return more > 0 ? b + " and " + more + " more" : b.toString();
  }

  private String describeOffered() {
    return offered.size() <= listedAtMost
        ? String.join(", ", offered)
        : offered.size() + " devices such as " + String.join(", ", offered.subList(0, 4));
  }
}
