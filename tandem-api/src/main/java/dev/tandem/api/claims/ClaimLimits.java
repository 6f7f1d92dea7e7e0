package dev.tandem.api.claims;

import java.util.ArrayList;
import java.util.List;

/**
 * The API server's limits on a claim's devices, from {@code
 * staging/src/k8s.io/api/resource/v1/types.go} (docs/dra.md, "Claims for Tandem's rules").
 */
public final class ClaimLimits {

  /** {@code DeviceRequestsMaxSize}: requests per claim. */
  public static final int REQUESTS = 32;

  /** {@code FirstAvailableDeviceRequestMaxSize}: alternatives per request. */
  public static final int ALTERNATIVES = 8;

  /** {@code DeviceConstraintsMaxSize}: constraints per claim. */
  public static final int CONSTRAINTS = 32;

  /** Requests one constraint names ({@code DeviceRequestsMaxSize} again). */
  public static final int CONSTRAINT_REQUESTS = 32;

  /** {@code AllocationResultsMaxSize}: devices one claim is allocated. */
  public static final int DEVICES = 32;

  private ClaimLimits() {}

  /** Each limit the claim exceeds, as a sentence; empty when it fits. */
  public static List<String> violations(DeviceClaimSpec claim) {
    List<String> out = new ArrayList<>();
    over(out, "requests", claim.requests().size(), REQUESTS);
    over(out, "constraints", claim.constraints().size(), CONSTRAINTS);
    over(out, "devices", claim.maxDevices(), DEVICES);
    for (ClaimRequest r : claim.requests()) {
      over(out, "alternatives of request " + r.name(), r.choices().size(), ALTERNATIVES);
    }
    for (MatchConstraint c : claim.constraints()) {
      over(out, "requests named by a constraint", c.requests().size(), CONSTRAINT_REQUESTS);
    }
    return out;
  }

  private static void over(List<String> out, String what, int n, int max) {
    if (n > max) {
      out.add(n + " " + what + " (the API allows " + max + ")");
    }
  }
}
