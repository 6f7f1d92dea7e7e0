package dev.tandem.api.claims;

import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.LinkedHashSet;
import java.util.Set;

/** Which shapes a claim expresses within the API's limits, and the nearest ones when not. */
final class Shapes {

  /**
   * The most pairs a required claim holds: {@code gpu-i} has i alternatives (join one of the {@code
   * i - 1} before it, or open a group), at most {@link ClaimLimits#ALTERNATIVES}.
   */
  static final int MAX_REQUIRED_PAIRS = ClaimLimits.ALTERNATIVES;

  private Shapes() {}

  static void requireExpressible(AllocationRequest request) {
    int gpus = request.gpus();
    int hcas = request.hcas();
    if (gpus + hcas == 0) {
      throw new InexpressibleClaimException(
          "a claim asks for at least one device: 0 GPUs + 0 HCAs");
    }
    String why = null;
    if (gpus + hcas > ClaimLimits.DEVICES) {
      why =
          "it needs "
              + (gpus + hcas)
              + " devices and the API allocates at most "
              + ClaimLimits.DEVICES
              + " to one claim";
    } else if (required(request) && Math.min(gpus, hcas) > MAX_REQUIRED_PAIRS) {
      why =
          "the pairing needs "
              + Math.min(gpus, hcas)
              + " alternatives on a request and the API allows "
              + ClaimLimits.ALTERNATIVES;
    }
    if (why != null) {
      throw new InexpressibleClaimException(
          request.describe()
              + " with alignment "
              + request.policy()
              + " cannot be expressed as one claim: "
              + why
              + "; nearest expressible: "
              + String.join(", ", nearest(request)));
    }
  }

  private static boolean required(AllocationRequest request) {
    return ClaimGenerator.aligned(request) && request.policy().mode() == AlignmentMode.REQUIRED;
  }

  /** Shapes close to the request that a claim expresses, each described. */
  private static Set<String> nearest(AllocationRequest request) {
    Set<String> out = new LinkedHashSet<>();
    int gpus = request.gpus();
    int hcas = request.hcas();
    boolean required = required(request);
    int pairCap = required ? MAX_REQUIRED_PAIRS : ClaimLimits.DEVICES;
    // keep the larger kind as large as the limits allow, shrink the smaller one
    if (gpus <= hcas) {
      int g = Math.min(gpus, pairCap);
      out.add(describe(g, Math.min(hcas, ClaimLimits.DEVICES - g), request.policy()));
    }
    if (hcas <= gpus) {
      int h = Math.min(hcas, pairCap);
      out.add(describe(Math.min(gpus, ClaimLimits.DEVICES - h), h, request.policy()));
    }
    if (required && gpus + hcas <= ClaimLimits.DEVICES) {
      AlignmentPolicy preferred =
          new AlignmentPolicy(request.policy().alignment(), AlignmentMode.PREFERRED);
      out.add(describe(gpus, hcas, preferred));
    }
    return out;
  }

  private static String describe(int gpus, int hcas, AlignmentPolicy policy) {
    return new AllocationRequest(gpus, hcas, policy).describe() + " " + policy;
  }
}
