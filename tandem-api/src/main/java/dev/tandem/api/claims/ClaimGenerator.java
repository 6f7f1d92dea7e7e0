package dev.tandem.api.claims;

import dev.tandem.api.dra.DraAttributes;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The claim that asks DRA for what topology-core's {@code Allocator} gives a pod: {@code g} GPUs
 * and {@code h} HCAs such that every GPU has an HCA within the alignment's locality and every HCA a
 * GPU (docs/topology.md). The locality's groups are the values of one published attribute ({@link
 * #attribute}), so the rule is: the devices split into groups of equal value, each holding a GPU
 * and an HCA.
 *
 * <p>The encoding (docs/dra.md, "Claims for Tandem's rules"): one request per device, in pairs
 * {@code gpu-1, hca-1, gpu-2, hca-2, …} for the first min(g, h) of each kind, then the rest of the
 * larger kind. Each request's alternatives say which group the device joins: {@code with-gpu-k}
 * puts it with {@code gpu-k} (one {@code matchAttribute} per k over every request that chose it),
 * and {@code new} lets {@code gpu-i} open a group of its own that {@code hca-i} must join. Every
 * device so ends up with a GPU whose group holds an HCA (sound), and any allowed choice of devices
 * has such a labelling (complete): the DRA allocator's exhaustive search finds a claim's devices
 * exactly when the rule can be met. {@code preferred} adds a last alternative {@code any} without
 * constraint to every request.
 */
public final class ClaimGenerator {

  /** The DeviceClass of Tandem's GPUs. */
  public static final String GPU_CLASS = "tandem-gpu";

  /** The DeviceClass of Tandem's HCAs. */
  public static final String HCA_CLASS = "tandem-hca";

  static final String NEW = "new";
  static final String ANY = "any";

  private ClaimGenerator() {}

  /** The DeviceClass of Tandem's devices of a kind. */
  public static String deviceClass(DeviceKind kind) {
    return kind == DeviceKind.GPU ? GPU_CLASS : HCA_CLASS;
  }

  /**
   * The attribute whose equal values mean an alignment's locality; null for {@code none}, which
   * constrains nothing.
   */
  public static String attribute(Alignment alignment) {
    return switch (alignment) {
      case SWITCH -> DraAttributes.PCIE_SWITCH;
      case ROOT_COMPLEX -> DraAttributes.ROOT_COMPLEX;
      case NUMA -> DraAttributes.CPU_DOMAIN;
      case NONE -> null;
    };
  }

  /**
   * The claim for a pod's GPUs and HCAs under its policy.
   *
   * @throws InexpressibleClaimException naming the shape and the nearest shapes a claim can express
   */
  public static DeviceClaimSpec claim(AllocationRequest request) {
    Shapes.requireExpressible(request);
    DeviceClaimSpec claim =
        aligned(request) ? new Pairing(request).claim() : plain(request.gpus(), request.hcas());
    List<String> over = ClaimLimits.violations(claim);
    if (!over.isEmpty()) {
      throw new IllegalStateException("claim for " + request.describe() + " exceeds " + over);
    }
    return claim;
  }

  /** Whether the policy constrains the devices: both kinds asked, an alignment other than none. */
  static boolean aligned(AllocationRequest request) {
    return request.paired() && request.policy().alignment() != Alignment.NONE;
  }

  private static DeviceClaimSpec plain(int gpus, int hcas) {
    List<ClaimRequest> requests = new ArrayList<>();
    if (gpus > 0) {
      requests.add(ClaimRequest.exactly("gpus", GPU_CLASS, gpus));
    }
    if (hcas > 0) {
      requests.add(ClaimRequest.exactly("hcas", HCA_CLASS, hcas));
    }
    return new DeviceClaimSpec(requests, List.of());
  }

  /** One alternative: join {@code gpu-<target>}'s group, or ({@code target} 0) open one. */
  private record Option(String name, int target) {

    static Option join(int k) {
      return new Option("with-gpu-" + k, k);
    }
  }

  /** The pairing encoding of one request (class comment). */
  private static final class Pairing {
    private final int gpus;
    private final int hcas;
    private final int pairs;
    private final boolean preferred;
    private final String attribute;
    private final List<ClaimRequest> requests = new ArrayList<>();
    private final List<List<Option>> options = new ArrayList<>();

    Pairing(AllocationRequest request) {
      this.gpus = request.gpus();
      this.hcas = request.hcas();
      this.pairs = Math.min(gpus, hcas);
      this.preferred = request.policy().mode() == AlignmentMode.PREFERRED;
      this.attribute = attribute(request.policy().alignment());
    }

    DeviceClaimSpec claim() {
      for (int i = 1; i <= pairs; i++) {
        List<Option> gpu = new ArrayList<>();
        for (int k = 1; k < i; k++) {
          gpu.add(Option.join(k));
        }
        gpu.add(new Option(NEW, 0));
        add("gpu-" + i, GPU_CLASS, gpu);
        List<Option> hca = new ArrayList<>();
        hca.add(Option.join(i));
        for (int k = 1; k < i; k++) {
          hca.add(Option.join(k));
        }
        add("hca-" + i, HCA_CLASS, hca);
      }
      boolean moreGpus = gpus > hcas;
      for (int i = pairs + 1; i <= Math.max(gpus, hcas); i++) {
        List<Option> extra = new ArrayList<>();
        for (int k = 1; k <= pairs; k++) {
          extra.add(Option.join(k));
        }
        add((moreGpus ? "gpu-" : "hca-") + i, moreGpus ? GPU_CLASS : HCA_CLASS, extra);
      }
      return new DeviceClaimSpec(requests, constraints());
    }

    /** A request with its aligned options (as many as fit), and {@code any} when preferred. */
    private void add(String name, String deviceClass, List<Option> aligned) {
      List<Option> kept =
          aligned.subList(
              0, Math.min(aligned.size(), ClaimLimits.ALTERNATIVES - (preferred ? 1 : 0)));
      List<DeviceChoice> choices = new ArrayList<>();
      if (kept.size() == 1 && !preferred) {
        requests.add(ClaimRequest.exactly(name, deviceClass, 1));
      } else {
        kept.forEach(o -> choices.add(new DeviceChoice(o.name(), deviceClass, 1)));
        if (preferred) {
          choices.add(new DeviceChoice(ANY, deviceClass, 1));
        }
        requests.add(new ClaimRequest(name, choices));
      }
      options.add(List.copyOf(kept));
    }

    private List<MatchConstraint> constraints() {
      List<MatchConstraint> out = new ArrayList<>();
      for (int k = 1; k <= pairs; k++) {
        Set<String> group = new LinkedHashSet<>(alignedRefs(index("gpu-" + k)));
        for (int r = 0; r < requests.size(); r++) {
          for (Option o : options.get(r)) {
            if (o.target() == k) {
              group.add(ref(r, o));
            }
          }
        }
        out.add(new MatchConstraint(attribute, List.copyOf(group)));
      }
      for (int i = 2; i <= pairs; i++) {
        int gpu = index("gpu-" + i);
        if (options.get(gpu).stream().anyMatch(o -> o.target() == 0)) {
          List<String> pair = new ArrayList<>();
          pair.add(ref(gpu, new Option(NEW, 0)));
          pair.addAll(alignedRefs(index("hca-" + i)));
          out.add(new MatchConstraint(attribute, pair));
        }
      }
      return out;
    }

    /**
     * How a constraint names a request whatever aligned alternative it took: by its name when it
     * has no {@code any} to escape to, else each aligned alternative.
     */
    private List<String> alignedRefs(int r) {
      if (!preferred) {
        return List.of(requests.get(r).name());
      }
      return options.get(r).stream().map(o -> ref(r, o)).toList();
    }

    private String ref(int r, Option o) {
      ClaimRequest request = requests.get(r);
      return request.exactly() ? request.name() : request.name() + "/" + o.name();
    }

    private int index(String name) {
      for (int r = 0; r < requests.size(); r++) {
        if (requests.get(r).name().equals(name)) {
          return r;
        }
      }
      throw new IllegalStateException("no request " + name);
    }
  }
}
