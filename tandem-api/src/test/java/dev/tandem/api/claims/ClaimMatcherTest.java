package dev.tandem.api.claims;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The structured allocator's rules, one by one, on hand-made devices. */
class ClaimMatcherTest {

  private static final String KEY = "example.com/group";

  private static DraDevice gpu(String name, String group) {
    return new DraDevice(name, "gpu", group == null ? Map.of() : Map.of(KEY, group));
  }

  private static DraDevice hca(String name, String group) {
    return new DraDevice(name, "hca", Map.of(KEY, group));
  }

  private static List<ClaimMatcher.Result> allocate(DeviceClaimSpec claim, DraDevice... free) {
    return ClaimMatcher.allocate(claim, List.of(free)).orElse(null);
  }

  private static ClaimMatcher.Result r(String request, String device) {
    return new ClaimMatcher.Result(request, device);
  }

  @Test
  void backtracksOverEarlierDevicesUntilTheConstraintHolds() {
    DeviceClaimSpec claim =
        new DeviceClaimSpec(
            List.of(ClaimRequest.exactly("g", "gpu", 1), ClaimRequest.exactly("h", "hca", 1)),
            List.of(new MatchConstraint(KEY, List.of("g", "h"))));
    assertEquals(
        List.of(r("g", "g1"), r("h", "h0")),
        allocate(claim, gpu("g0", "a"), gpu("g1", "b"), hca("h0", "b")));
  }

  @Test
  void aDeviceWithoutTheAttributeNeverMeetsTheConstraint() {
    DeviceClaimSpec claim =
        new DeviceClaimSpec(
            List.of(ClaimRequest.exactly("g", "gpu", 1)),
            List.of(new MatchConstraint(KEY, List.of("g"))));
    assertEquals(null, allocate(claim, gpu("g0", null)));
    assertEquals(List.of(r("g", "g1")), allocate(claim, gpu("g0", null), gpu("g1", "a")));
  }

  @Test
  void alternativesInOrderAndAConstraintOnOneAlternativeOnly() {
    ClaimRequest g =
        new ClaimRequest(
            "g", List.of(new DeviceChoice("two", "gpu", 2), new DeviceChoice("one", "gpu", 1)));
    DeviceClaimSpec claim =
        new DeviceClaimSpec(
            List.of(g, ClaimRequest.exactly("h", "hca", 1)),
            List.of(new MatchConstraint(KEY, List.of("g/two", "h"))));
    // two GPUs of group a but the HCA in b: "two" fails, "one" is not constrained
    assertEquals(
        List.of(r("g/one", "g0"), r("h", "h0")),
        allocate(claim, gpu("g0", "a"), gpu("g1", "a"), hca("h0", "b")));
    assertEquals(
        List.of(r("g/two", "g0"), r("g/two", "g1"), r("h", "h0")),
        allocate(claim, gpu("g0", "b"), gpu("g1", "b"), hca("h0", "b")));
    // naming the request covers every alternative
    DeviceClaimSpec whole =
        new DeviceClaimSpec(
            List.of(g, ClaimRequest.exactly("h", "hca", 1)),
            List.of(new MatchConstraint(KEY, List.of("g", "h"))));
    assertEquals(
        Optional.empty(), ClaimMatcher.allocate(whole, List.of(gpu("g0", "a"), hca("h0", "b"))));
  }

  @Test
  void aConstraintWithoutRequestsCoversThemAll() {
    DeviceClaimSpec claim =
        new DeviceClaimSpec(
            List.of(ClaimRequest.exactly("g", "gpu", 1), ClaimRequest.exactly("h", "hca", 1)),
            List.of(new MatchConstraint(KEY, List.of())));
    assertEquals(null, allocate(claim, gpu("g0", "a"), hca("h0", "b")));
  }
}
