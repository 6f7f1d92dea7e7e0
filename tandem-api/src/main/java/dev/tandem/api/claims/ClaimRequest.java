package dev.tandem.api.claims;

import java.util.List;

/**
 * One request of a claim ({@code spec.devices.requests[]}): one unnamed choice ({@code exactly}),
 * or named alternatives tried in order ({@code firstAvailable}, at most {@link
 * ClaimLimits#ALTERNATIVES}).
 */
public record ClaimRequest(String name, List<DeviceChoice> choices) {

  public ClaimRequest {
    choices = List.copyOf(choices);
    boolean exactly = choices.size() == 1 && choices.get(0).name() == null;
    if (!exactly && choices.stream().anyMatch(c -> c.name() == null)) {
      throw new IllegalArgumentException("request " + name + ": every alternative needs a name");
    }
  }

  /** A request for {@code count} devices of a class, without alternatives. */
  public static ClaimRequest exactly(String name, String deviceClass, int count) {
    return new ClaimRequest(name, List.of(new DeviceChoice(null, deviceClass, count)));
  }

  /** Whether the request is given exactly (one unnamed choice), not as alternatives. */
  public boolean exactly() {
    return choices.get(0).name() == null;
  }

  /**
   * How a constraint names one choice of this request: the request's own name when it is given
   * exactly, else {@code <request>/<subrequest>}.
   */
  public String ref(DeviceChoice choice) {
    return exactly() ? name : name + "/" + choice.name();
  }
}
