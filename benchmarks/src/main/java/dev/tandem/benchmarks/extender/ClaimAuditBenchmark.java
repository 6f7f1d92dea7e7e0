package dev.tandem.benchmarks.extender;

import dev.tandem.api.claims.ClaimGenerator;
import dev.tandem.api.claims.ClaimRequest;
import dev.tandem.api.claims.ClaimSatisfiability;
import dev.tandem.api.claims.ClaimSatisfiability.NodeOffer;
import dev.tandem.api.claims.ClaimSatisfiability.Unsatisfiable;
import dev.tandem.api.claims.DeviceClaimSpec;
import dev.tandem.api.claims.MatchConstraint;
import dev.tandem.api.claims.NodeDevices;
import dev.tandem.api.dra.DraAttributes;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The extender's claim audit on one pending claim (docs/extender.md, "Claims no node can be
 * given"): {@link ClaimSatisfiability#judge} over every node ({@code perNode}, what the audit did
 * before grouping) beside the same judgement over the first node of each device signature ({@code
 * grouped}, what it does: {@link ClaimSatisfiability#distinct} included, the signatures worked out
 * once at setup as the audit keeps them per tree). The nodes are the extender's demo cluster of the
 * bundled fixture models, in turn. Claims: {@code one-switch-4x4}, 4 GPUs and 4 HCAs under one
 * {@code tandem.dev/pcieSwitch} (no node has it: every node matched, then the reason and the
 * nearest claim worked out); {@code generated-8x8}, {@code ./tandem claim --gpus 8 --hcas 8
 * --alignment switch} (satisfiable: matching stops at the first node that fits). Reports ms per
 * claim.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgs = {"-XX:+UseSerialGC", "-Xmx2g"})
public class ClaimAuditBenchmark {

  @Param({"1000", "5000"})
  int nodes;

  @Param({"one-switch-4x4", "generated-8x8"})
  String claim;

  private List<NodeOffer> offers;
  private DeviceClaimSpec spec;

  @Setup
  public void cluster() {
    offers =
        DemoCluster.fromBundledFixtures(nodes).state().nodes().stream()
            .map(NodeEntry::machine)
            .map(m -> new NodeOffer(m.nodeName(), NodeDevices.of(m)))
            .toList();
    offers.forEach(NodeOffer::signature);
    spec =
        switch (claim) {
          case "one-switch-4x4" -> oneSwitch(4, 4);
          case "generated-8x8" ->
              ClaimGenerator.claim(
                  new AllocationRequest(
                      8, 8, new AlignmentPolicy(Alignment.SWITCH, AlignmentMode.REQUIRED)));
          default -> throw new IllegalArgumentException("unknown claim " + claim);
        };
    Optional<String> each = perNode().map(u -> u.message("c"));
    Optional<String> grouped = grouped().map(u -> u.message("c"));
    if (!each.equals(grouped)) {
      throw new IllegalStateException("grouped " + grouped + " differs from per node " + each);
    }
  }

  private static DeviceClaimSpec oneSwitch(int gpus, int hcas) {
    return new DeviceClaimSpec(
        List.of(
            ClaimRequest.exactly("gpus", ClaimGenerator.GPU_CLASS, gpus),
            ClaimRequest.exactly("hcas", ClaimGenerator.HCA_CLASS, hcas)),
        List.of(new MatchConstraint(DraAttributes.PCIE_SWITCH, List.of("gpus", "hcas"))));
  }

  @Benchmark
  public Optional<Unsatisfiable> perNode() {
    return ClaimSatisfiability.judge(spec, offers);
  }

  @Benchmark
  public Optional<Unsatisfiable> grouped() {
    return ClaimSatisfiability.judge(spec, ClaimSatisfiability.distinct(offers));
  }
}
