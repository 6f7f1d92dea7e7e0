package dev.tandem.api.claims;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.tandem.api.claims.ClaimSatisfiability.NodeOffer;
import dev.tandem.api.claims.ClaimSatisfiability.Unsatisfiable;
import dev.tandem.api.dra.DraAttributes;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * The claim audit's grouping ({@link ClaimSatisfiability#distinct}, {@link DeviceSignature}): on
 * generated clusters, judging the first node of each signature gives the same verdict, in the same
 * words, as judging every node.
 */
class DistinctNodesPropertyTest {

  private static final String GPU = ClaimGenerator.GPU_CLASS;
  private static final String HCA = ClaimGenerator.HCA_CLASS;
  private static final List<String> ATTRIBUTES =
      List.of(DraAttributes.PCIE_SWITCH, DraAttributes.PCIE_ROOT, DraAttributes.NUMA_NODE);

  private static final List<Machine> FIXTURES =
      List.of(
          RealMachines.xe8640(),
          RealMachines.dgxA100(),
          RealMachines.hgxH100EightNic(),
          RealMachines.hgxH200(),
          TestMachines.pixNode(),
          TestMachines.splitNode(),
          TestMachines.gpuOnly());

  private static final List<List<DraDevice>> FIXTURE_DEVICES =
      FIXTURES.stream().map(NodeDevices::of).toList();

  @Property(tries = 400)
  void groupedVerdictIsThePerNodeVerdictOnSmallModels(@ForAll long seed) {
    Random random = new Random(seed);
    List<List<DraDevice>> models = new ArrayList<>();
    for (int i = 1 + random.nextInt(4); i > 0; i--) {
      models.add(model(random));
    }
    List<NodeOffer> nodes = cluster(models, 2 + random.nextInt(10), random, true);
    for (int i = 0; i < 4; i++) {
      assertSameVerdict(claim(random), nodes);
    }
  }

  @Property(tries = 60)
  void groupedVerdictIsThePerNodeVerdictOnFixtureModels(@ForAll long seed) {
    Random random = new Random(seed);
    List<NodeOffer> nodes = cluster(FIXTURE_DEVICES, 2 + random.nextInt(12), random, true);
    for (int i = 0; i < 3; i++) {
      assertSameVerdict(random.nextBoolean() ? claim(random) : generated(random), nodes);
    }
  }

  @Test
  void nodesOfOneModelShareASignatureWhateverTheirValues() {
    Random random = new Random(34);
    List<NodeOffer> nodes = cluster(FIXTURE_DEVICES, 200, random, false);
    assertEquals(FIXTURE_DEVICES.size(), ClaimSatisfiability.distinct(nodes).size());
  }

  @Test
  void aValueThatNoLongerMatchesMakesAnotherSignature() {
    List<DraDevice> devices = NodeDevices.of(RealMachines.hgxH100EightNic());
    List<DraDevice> merged = new ArrayList<>(devices);
    DraDevice last = merged.get(merged.size() - 1);
    Map<String, String> attributes = new HashMap<>(last.attributes());
    attributes.put(DraAttributes.PCIE_SWITCH, devices.get(0).attributes().get(SWITCH));
    merged.set(merged.size() - 1, new DraDevice(last.name(), last.deviceClass(), attributes));
    assertEquals(DeviceSignature.of(devices), DeviceSignature.of(renamed(devices, "x")));
    assertNotEquals(DeviceSignature.of(devices), DeviceSignature.of(merged));
  }

  private static final String SWITCH = DraAttributes.PCIE_SWITCH;

  private static void assertSameVerdict(DeviceClaimSpec claim, List<NodeOffer> nodes) {
    Optional<String> each = ClaimSatisfiability.judge(claim, nodes).map(u -> text(u));
    Optional<String> grouped =
        ClaimSatisfiability.judge(claim, ClaimSatisfiability.distinct(nodes)).map(u -> text(u));
    assertEquals(each, grouped, () -> "claim " + claim + " on " + nodes);
  }

  private static String text(Unsatisfiable u) {
    return u.message("c");
  }

  /**
   * Nodes drawn from the models in a random order, each with its own attribute values (a renamed
   * copy), some with one device dropped or one value changed: a signature of its own.
   */
  private static List<NodeOffer> cluster(
      List<List<DraDevice>> models, int n, Random random, boolean perturb) {
    List<NodeOffer> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      List<DraDevice> devices = models.get(random.nextInt(models.size()));
      devices = random.nextBoolean() ? renamed(devices, "n" + i) : devices;
      if (perturb && random.nextInt(4) == 0) {
        devices = perturbed(devices, random);
      }
      out.add(new NodeOffer("node-" + i, devices));
    }
    return out;
  }

  /** The same devices with every attribute value renamed for one node, consistently. */
  private static List<DraDevice> renamed(List<DraDevice> devices, String node) {
    List<DraDevice> out = new ArrayList<>();
    for (DraDevice d : devices) {
      Map<String, String> attributes = new HashMap<>();
      d.attributes().forEach((k, v) -> attributes.put(k, node + ":" + v));
      out.add(new DraDevice(d.name(), d.deviceClass(), attributes));
    }
    return out;
  }

  private static List<DraDevice> perturbed(List<DraDevice> devices, Random random) {
    List<DraDevice> out = new ArrayList<>(devices);
    if (out.isEmpty()) {
      return out;
    }
    int i = random.nextInt(out.size());
    if (random.nextBoolean()) {
      out.remove(i);
      return out;
    }
    DraDevice d = out.get(i);
    DraDevice other = out.get(random.nextInt(out.size()));
    Map<String, String> attributes = new HashMap<>(d.attributes());
    String attribute = ATTRIBUTES.get(random.nextInt(ATTRIBUTES.size()));
    String value = other.attributes().get(attribute);
    if (value == null) {
      attributes.remove(attribute);
    } else {
      attributes.put(attribute, value);
    }
    out.set(i, new DraDevice(d.name(), d.deviceClass(), attributes));
    return out;
  }

  /** Up to 6 GPUs and HCAs, each with a value of each attribute from a few, or none. */
  private static List<DraDevice> model(Random random) {
    List<DraDevice> out = new ArrayList<>();
    for (int d = random.nextInt(7); d > 0; d--) {
      Map<String, String> attributes = new HashMap<>();
      for (String a : ATTRIBUTES) {
        int v = random.nextInt(4);
        if (v > 0) {
          attributes.put(a, "v" + v);
        }
      }
      out.add(new DraDevice("d" + out.size(), random.nextBoolean() ? GPU : HCA, attributes));
    }
    Collections.shuffle(out, random);
    return out;
  }

  /** One to three requests of 1–4 devices, some with alternatives, and up to two constraints. */
  private static DeviceClaimSpec claim(Random random) {
    List<ClaimRequest> requests = new ArrayList<>();
    for (int r = 0; r < 1 + random.nextInt(3); r++) {
      if (random.nextInt(3) == 0) {
        requests.add(
            new ClaimRequest(
                "r" + r,
                List.of(
                    new DeviceChoice("a", GPU, 1 + random.nextInt(4)),
                    new DeviceChoice("b", HCA, 1 + random.nextInt(2)))));
      } else {
        requests.add(
            ClaimRequest.exactly("r" + r, random.nextBoolean() ? GPU : HCA, 1 + random.nextInt(4)));
      }
    }
    List<MatchConstraint> constraints = new ArrayList<>();
    for (int c = random.nextInt(3); c > 0; c--) {
      List<String> named = new ArrayList<>();
      requests.stream().filter(r -> random.nextBoolean()).forEach(r -> named.add(r.name()));
      constraints.add(
          new MatchConstraint(ATTRIBUTES.get(random.nextInt(ATTRIBUTES.size())), named));
    }
    return new DeviceClaimSpec(requests, constraints);
  }

  /** A claim {@code ./tandem claim} writes for a shape up to 8+8, or a hand-edited one. */
  private static DeviceClaimSpec generated(Random random) {
    int gpus = 1 + random.nextInt(8);
    int hcas = 1 + random.nextInt(8);
    Alignment alignment =
        List.of(Alignment.SWITCH, Alignment.ROOT_COMPLEX, Alignment.NUMA).get(random.nextInt(3));
    if (random.nextBoolean()) {
      return new DeviceClaimSpec(
          List.of(ClaimRequest.exactly("gpus", GPU, gpus), ClaimRequest.exactly("hcas", HCA, hcas)),
          List.of(new MatchConstraint(ClaimGenerator.attribute(alignment), List.of())));
    }
    try {
      return ClaimGenerator.claim(
          new AllocationRequest(
              gpus, hcas, new AlignmentPolicy(alignment, AlignmentMode.REQUIRED)));
    } catch (InexpressibleClaimException e) {
      return ClaimGenerator.claim(
          new AllocationRequest(1, 1, new AlignmentPolicy(alignment, AlignmentMode.REQUIRED)));
    }
  }
}
