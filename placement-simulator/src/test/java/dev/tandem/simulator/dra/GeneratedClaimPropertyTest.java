package dev.tandem.simulator.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.claims.ClaimGenerator;
import dev.tandem.api.claims.ClaimMatcher;
import dev.tandem.api.claims.ClaimRequest;
import dev.tandem.api.claims.DeviceClaimSpec;
import dev.tandem.api.claims.DraDevice;
import dev.tandem.api.claims.MatchConstraint;
import dev.tandem.api.dra.DraAttributes;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.simulator.SmallClusters;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The proof of the generator (docs/dra.md, "Claims for Tandem's rules"): on a node's free devices,
 * the claim built for a shape and policy is allocated by the structured allocator's search ({@link
 * ClaimMatcher}) exactly when topology-core's {@link Allocator} allocates the pod, and what it
 * allocates meets the policy.
 */
class GeneratedClaimPropertyTest {

  /** Every fixture topology with GPUs and HCAs the driver publishes. */
  private static final List<Machine> FIXTURES =
      List.of(
          RealMachines.xe8640(),
          RealMachines.relion(),
          RealMachines.dgxA100(),
          RealMachines.hgxH100EightNic(),
          RealMachines.hgxH100TwelveNic(),
          RealMachines.hgxH200(),
          TestMachines.pixNode(),
          TestMachines.splitNode(),
          TestMachines.gpuOnly(),
          TestMachines.twoSwitchesAndLoneHca("lone-hca"),
          TestMachines.gpusOnRootPorts("root-ports"),
          TestMachines.vmWithVf("vm"),
          TestMachines.twoSockets("two-sockets"),
          TestMachines.sixteenBySixteen());

  private static final List<AlignmentPolicy> POLICIES = policies();

  /** One matcher per pod shape and policy: its claim's symmetries are worked out once. */
  private static final Map<AllocationRequest, ClaimMatcher> MATCHERS = new ConcurrentHashMap<>();

  @Test
  void everyShapeAndPolicyOnEveryFixtureAllFreeAndOnRandomFreeSets() {
    Random random = new Random(34);
    for (Machine machine : FIXTURES) {
      Node node = new Node(machine);
      List<Availability> states = new ArrayList<>();
      states.add(node.allFree);
      for (int i = 0; i < 3; i++) {
        states.add(node.randomFree(random));
      }
      for (AlignmentPolicy policy : POLICIES) {
        for (int g = 0; g <= 8; g++) {
          for (int h = g == 0 ? 1 : 0; h <= 8; h++) {
            for (Availability free : states) {
              node.check(new AllocationRequest(g, h, policy), free);
            }
          }
        }
      }
    }
  }

  @Property(tries = 1000)
  @Label("claim allocated ⇔ allocator allocates, on random machines and free sets")
  void randomMachinesAndFreeSets(
      @ForAll long seed,
      @ForAll @IntRange(max = 8) int gpus,
      @ForAll @IntRange(max = 8) int hcas,
      @ForAll Alignment alignment,
      @ForAll AlignmentMode mode) {
    if (gpus + hcas == 0) {
      return;
    }
    Random random = new Random(seed);
    Machine machine =
        random.nextInt(3) == 0
            ? FIXTURES.get(random.nextInt(FIXTURES.size()))
            : SmallClusters.random(random, "random");
    Node node = new Node(machine);
    node.check(
        new AllocationRequest(gpus, hcas, new AlignmentPolicy(alignment, mode)),
        node.randomFree(random));
  }

  @Test
  void oneConstraintOverEveryRequestIsStricterThanTheRule() {
    Node node = new Node(RealMachines.hgxH100EightNic());
    AllocationRequest pod = new AllocationRequest(4, 4, AlignmentPolicy.DEFAULT);
    assertTrue(node.allocator.allocate(pod, node.allFree) instanceof Allocation);
    List<DraDevice> free = PublishedDevices.free(node.allFree);
    assertTrue(ClaimMatcher.allocate(ClaimGenerator.claim(pod), free).isPresent());
    DeviceClaimSpec single =
        new DeviceClaimSpec(
            List.of(
                ClaimRequest.exactly("gpus", ClaimGenerator.GPU_CLASS, 4),
                ClaimRequest.exactly("hcas", ClaimGenerator.HCA_CLASS, 4)),
            List.of(new MatchConstraint(DraAttributes.PCIE_SWITCH, List.of("gpus", "hcas"))));
    assertEquals(Optional.empty(), ClaimMatcher.allocate(single, free));
  }

  private static List<AlignmentPolicy> policies() {
    List<AlignmentPolicy> out = new ArrayList<>();
    for (Alignment a : Alignment.values()) {
      for (AlignmentMode m : AlignmentMode.values()) {
        out.add(new AlignmentPolicy(a, m));
      }
    }
    return out;
  }

  /** One node: its allocator and the devices the driver publishes. */
  private static final class Node {
    final Machine machine;
    final LocalityIndex index;
    final Allocator allocator;
    final Availability allFree;
    final Map<String, Integer> byDraName;

    Node(Machine machine) {
      this.machine = machine;
      this.index = LocalityIndex.of(machine);
      this.allocator = new Allocator(index);
      this.allFree = Availability.allFree(index, PublishedDevices::units);
      this.byDraName =
          index.devices().stream()
              .collect(Collectors.toMap(DeviceIds::draName, d -> index.indexOf(d.id())));
    }

    /** Each device taken with a probability drawn per state (0 to 70 %). */
    Availability randomFree(Random random) {
      double taken = random.nextDouble() * 0.7;
      List<String> ids = new ArrayList<>();
      for (Device d : index.devices()) {
        if (random.nextDouble() < taken) {
          ids.add(d.id());
        }
      }
      return allFree.without(ids);
    }

    void check(AllocationRequest pod, Availability free) {
      boolean allocated = allocator.allocate(pod, free) instanceof Allocation;
      List<DraDevice> published = PublishedDevices.free(free);
      Optional<List<ClaimMatcher.Result>> dra =
          MATCHERS
              .computeIfAbsent(pod, p -> ClaimMatcher.of(ClaimGenerator.claim(p)))
              .allocate(published);
      Supplier<String> what =
          () ->
              machine.nodeName()
                  + " free "
                  + published.stream().map(DraDevice::name).toList()
                  + ": "
                  + pod.describe()
                  + " "
                  + pod.policy();
      assertEquals(allocated, dra.isPresent(), what);
      dra.ifPresent(picks -> meetsPolicy(pod, picks, what.get()));
    }

    private void meetsPolicy(AllocationRequest pod, List<ClaimMatcher.Result> picks, String what) {
      List<Integer> gpus = new ArrayList<>();
      List<Integer> hcas = new ArrayList<>();
      for (ClaimMatcher.Result r : picks) {
        int d = byDraName.get(r.device());
        (index.devices().get(d).kind() == DeviceKind.GPU ? gpus : hcas).add(d);
      }
      assertEquals(pod.gpus(), gpus.size(), what);
      assertEquals(pod.hcas(), hcas.size(), what);
      assertEquals(
          picks.size(), picks.stream().map(ClaimMatcher.Result::device).distinct().count());
      if (pod.paired()) {
        int[] g = gpus.stream().mapToInt(Integer::intValue).toArray();
        int[] h = hcas.stream().mapToInt(Integer::intValue).toArray();
        assertTrue(
            index.pairing(g, h).isWithin(pod.policy().filterLimit()),
            what + ": allocated " + picks + " pairs at " + index.pairing(g, h));
      }
    }
  }
}
