package dev.tandem.api.claims;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Allocates one claim on one node's free devices as kube-scheduler's structured allocator does
 * ({@code k8s.io/dynamic-resource-allocation/structured}, docs/dra.md): requests in order; a
 * request's alternatives in order, the first that lets the whole claim be allocated wins; each
 * device of a request is the first free device of its class, in slice order, that every constraint
 * naming the request (or the chosen alternative) accepts; a {@code matchAttribute} constraint takes
 * the first device's value and then only devices with that value, never a device without the
 * attribute; on a dead end it backtracks. The first complete allocation is the answer.
 *
 * <p>The search is exhaustive, as upstream's is, and finds the same first allocation. It only skips
 * requests it has seen fail from an equivalent state: the same devices used (up to devices no class
 * or constrained attribute tells apart) and the same values in the constraints later requests can
 * still meet, up to constraints the rest of the claim treats alike (the {@code with-gpu-k}
 * alternatives of a generated claim). Upstream has no such memory, and is exponential on claims
 * that cannot be met.
 *
 * <p>Build one per claim ({@link #of}); {@link #allocate} is then called per node state.
 */
public final class ClaimMatcher {

  /** One allocated device: the request (or {@code request/alternative}) and the device's name. */
  public record Result(String request, String device) {}

  private final List<ClaimRequest> requests;
  private final List<MatchConstraint> constraints;

  /** The devices of each class the claim needs at least. */
  private final Map<String, Integer> need;

  /** applies[constraint][request][choice]. */
  private final boolean[][][] applies;

  /** live[request][constraint]: some choice of this request or a later one is constrained. */
  private final boolean[][] live;

  /**
   * orbit[request][constraint]: constraints the requests from here on treat alike share a number;
   * -1 for a constraint no longer live.
   */
  private final int[][] orbit;

  private ClaimMatcher(DeviceClaimSpec claim) {
    this.requests = claim.requests();
    this.constraints = claim.constraints();
    this.need = claim.leastPerClass();
    int n = requests.size();
    int k = constraints.size();
    this.applies = new boolean[k][n][];
    for (int c = 0; c < k; c++) {
      Set<String> names = new HashSet<>(constraints.get(c).requests());
      for (int r = 0; r < n; r++) {
        ClaimRequest request = requests.get(r);
        applies[c][r] = new boolean[request.choices().size()];
        for (int a = 0; a < request.choices().size(); a++) {
          applies[c][r][a] =
              names.isEmpty()
                  || names.contains(request.name())
                  || names.contains(request.ref(request.choices().get(a)));
        }
      }
    }
    this.live = new boolean[n + 1][k];
    for (int r = n - 1; r >= 0; r--) {
      for (int c = 0; c < k; c++) {
        boolean any = false;
        for (boolean b : applies[c][r]) {
          any |= b;
        }
        live[r][c] = live[r + 1][c] || any;
      }
    }
    this.orbit = new int[n + 1][];
    for (int r = 0; r <= n; r++) {
      orbit[r] = orbits(r);
    }
  }

  /** A matcher for one claim; reusable across nodes and node states. */
  public static ClaimMatcher of(DeviceClaimSpec claim) {
    return new ClaimMatcher(claim);
  }

  /** {@code of(claim).allocate(free)}. */
  public static Optional<List<Result>> allocate(DeviceClaimSpec claim, List<DraDevice> free) {
    return of(claim).allocate(free);
  }

  /**
   * The first allocation of the claim on {@code free}, the node's free devices in slice order;
   * empty when the claim cannot be allocated there.
   */
  public Optional<List<Result>> allocate(List<DraDevice> free) {
    if (!enough(free)) {
      return Optional.empty();
    }
    Search search = new Search(free);
    return search.request(0) ? Optional.of(List.copyOf(search.picks)) : Optional.empty();
  }

  /**
   * Whether the free devices of each class are at least what the requests that ask only that class
   * need, counting each at its smallest alternative: otherwise no allocation exists, which the
   * search would only find out after trying every one.
   */
  private boolean enough(List<DraDevice> free) {
    Map<String, Integer> have = new HashMap<>();
    free.forEach(d -> have.merge(d.deviceClass(), 1, Integer::sum));
    return need.entrySet().stream().allMatch(e -> have.getOrDefault(e.getKey(), 0) >= e.getValue());
  }

  /**
   * Groups the live constraints that swapping leaves the rest of the claim unchanged: for every
   * request from {@code r} on, the alternatives (class, count, which constraints apply) are the
   * same multiset with the two constraints exchanged. Such constraints' values can be sorted in a
   * state.
   */
  private int[] orbits(int r) {
    int k = constraints.size();
    int[] parent = new int[k];
    for (int c = 0; c < k; c++) {
      parent[c] = c;
    }
    for (int a = 0; a < k; a++) {
      for (int b = a + 1; b < k; b++) {
        if (live[r][a]
            && live[r][b]
            && constraints.get(a).attribute().equals(constraints.get(b).attribute())
            && swappable(r, a, b)) {
          parent[find(parent, b)] = find(parent, a);
        }
      }
    }
    int[] out = new int[k];
    for (int c = 0; c < k; c++) {
      out[c] = live[r][c] ? find(parent, c) : -1;
    }
    return out;
  }

  private static int find(int[] parent, int c) {
    while (parent[c] != c) {
      c = parent[c];
    }
    return c;
  }

  private boolean swappable(int from, int a, int b) {
    for (int r = from; r < requests.size(); r++) {
      List<String> plain = new ArrayList<>();
      List<String> swapped = new ArrayList<>();
      for (int c = 0; c < requests.get(r).choices().size(); c++) {
        plain.add(signature(r, c, a, b, false));
        swapped.add(signature(r, c, a, b, true));
      }
      plain.sort(null);
      swapped.sort(null);
      if (!plain.equals(swapped)) {
        return false;
      }
    }
    return true;
  }

  private String signature(int r, int c, int a, int b, boolean swap) {
    DeviceChoice choice = requests.get(r).choices().get(c);
    StringBuilder s = new StringBuilder(choice.deviceClass()).append('/').append(choice.count());
    for (int k = 0; k < constraints.size(); k++) {
      int from = !swap ? k : k == a ? b : k == b ? a : k;
      s.append(applies[from][r][c] ? '1' : '0');
    }
    return s.toString();
  }

  /** One allocation attempt on one node state. */
  private final class Search {
    private final List<DraDevice> devices;
    private final int[][][] eligible;
    private final int[] kindOf;
    private final int[] usedPerKind;
    private final boolean[] used;
    private final String[] value;
    private final int[] members;
    private final List<Result> picks = new ArrayList<>();
    private final Set<List<Object>> failed = new HashSet<>();

    Search(List<DraDevice> free) {
      this.devices = List.copyOf(free);
      this.eligible = new int[requests.size()][][];
      for (int r = 0; r < requests.size(); r++) {
        List<DeviceChoice> choices = requests.get(r).choices();
        eligible[r] = new int[choices.size()][];
        for (int c = 0; c < choices.size(); c++) {
          String deviceClass = choices.get(c).deviceClass();
          List<Integer> ok = new ArrayList<>();
          for (int d = 0; d < devices.size(); d++) {
            if (devices.get(d).deviceClass().equals(deviceClass)) {
              ok.add(d);
            }
          }
          eligible[r][c] = ok.stream().mapToInt(Integer::intValue).toArray();
        }
      }
      this.kindOf = new int[devices.size()];
      Map<List<String>, Integer> numbering = new HashMap<>();
      for (int d = 0; d < kindOf.length; d++) {
        DraDevice device = devices.get(d);
        List<String> key = new ArrayList<>();
        key.add(device.deviceClass());
        constraints.forEach(k -> key.add(device.attributes().get(k.attribute())));
        kindOf[d] = numbering.computeIfAbsent(key, x -> numbering.size());
      }
      this.usedPerKind = new int[numbering.size()];
      this.used = new boolean[devices.size()];
      this.value = new String[constraints.size()];
      this.members = new int[constraints.size()];
    }

    boolean request(int r) {
      if (r == requests.size()) {
        return true;
      }
      List<Object> state = state(r);
      if (failed.contains(state)) {
        return false;
      }
      for (int c = 0; c < requests.get(r).choices().size(); c++) {
        if (device(r, c, 0)) {
          return true;
        }
      }
      failed.add(state);
      return false;
    }

    private boolean device(int r, int c, int n) {
      DeviceChoice choice = requests.get(r).choices().get(c);
      if (n == choice.count()) {
        return request(r + 1);
      }
      for (int d : eligible[r][c]) {
        if (used[d] || !add(r, c, d)) {
          continue;
        }
        used[d] = true;
        usedPerKind[kindOf[d]]++;
        picks.add(new Result(requests.get(r).ref(choice), devices.get(d).name()));
        if (device(r, c, n + 1)) {
          return true;
        }
        picks.remove(picks.size() - 1);
        usedPerKind[kindOf[d]]--;
        used[d] = false;
        remove(r, c);
      }
      return false;
    }

    /** Adds the device to every constraint that applies, or to none when one refuses it. */
    private boolean add(int r, int c, int d) {
      Map<String, String> attributes = devices.get(d).attributes();
      for (int k = 0; k < constraints.size(); k++) {
        if (!applies[k][r][c]) {
          continue;
        }
        String v = attributes.get(constraints.get(k).attribute());
        if (v == null || (members[k] > 0 && !v.equals(value[k]))) {
          for (int j = 0; j < k; j++) {
            if (applies[j][r][c]) {
              members[j]--;
            }
          }
          return false;
        }
        value[k] = v;
        members[k]++;
      }
      return true;
    }

    private void remove(int r, int c) {
      for (int k = 0; k < constraints.size(); k++) {
        if (applies[k][r][c]) {
          members[k]--;
        }
      }
    }

    /**
     * What the rest of the search depends on: the request, the devices used by kind, and the values
     * of the live constraints, sorted within each group of constraints treated alike.
     */
    private List<Object> state(int r) {
      List<Object> s = new ArrayList<>();
      s.add(r);
      for (int u : usedPerKind) {
        s.add(u);
      }
      Map<Integer, List<String>> byOrbit = new HashMap<>();
      for (int k = 0; k < constraints.size(); k++) {
        if (orbit[r][k] >= 0) {
          byOrbit
              .computeIfAbsent(orbit[r][k], x -> new ArrayList<>())
              .add(members[k] > 0 ? value[k] : "");
        }
      }
      byOrbit.keySet().stream()
          .sorted()
          .forEach(
              o -> {
                List<String> values = byOrbit.get(o);
                values.sort(null);
                s.add(o);
                s.add(values);
              });
      return s;
    }
  }
}
