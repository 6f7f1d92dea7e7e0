package dev.tandem.dra.prepare;

import java.util.List;

/**
 * The answer for one claim: its devices, or why it could not be prepared.
 *
 * @param devices empty when {@code error} is set
 * @param error empty when the claim was prepared; else the claim, the device and what to do
 */
public record ClaimOutcome(List<PreparedDevice> devices, String error) {

  public ClaimOutcome {
    devices = List.copyOf(devices);
  }

  public static ClaimOutcome prepared(List<PreparedDevice> devices) {
    return new ClaimOutcome(devices, "");
  }

  public static ClaimOutcome failed(String error) {
    return new ClaimOutcome(List.of(), error);
  }

  public boolean ok() {
    return error.isEmpty();
  }
}
