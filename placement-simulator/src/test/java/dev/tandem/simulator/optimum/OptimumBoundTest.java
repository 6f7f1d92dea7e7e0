package dev.tandem.simulator.optimum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.simulator.SmallClusters;
import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.simulator.workload.Shape;
import dev.tandem.simulator.workload.WorkloadGenerator;
import dev.tandem.topology.model.DeviceKind;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The optimum of a trace too long to search: the bound, also when time runs out. */
class OptimumBoundTest {

  private static final Cluster CLUSTER = SmallClusters.of(SmallClusters.eightPairs("n"), 3);
  private static final List<PodSpec> PODS =
      new WorkloadGenerator(Shape.parseMix("1+1:2,4+4:1,8+8:1"), 1.5, 100, 300, 5)
          .generate(CLUSTER.count(DeviceKind.GPU));

  @Test
  @DisplayName("past 24 pods the optimum is the LP bound: at most the pods, at least joint mode")
  void bound() {
    OptimumResult r = Optimum.of(CLUSTER, PODS, Long.MAX_VALUE);
    assertEquals("upper bound", r.method());
    assertFalse(r.partial());
    assertTrue(r.aligned() < PODS.size(), "at 150 % load not every pod fits: " + r.aligned());
  }

  @Test
  @DisplayName("out of time, the bound stops early: still a bound, never tighter, said partial")
  void cutShort() {
    OptimumResult full = Optimum.of(CLUSTER, PODS, Long.MAX_VALUE);
    OptimumResult hurried = Optimum.of(CLUSTER, PODS, System.nanoTime() - 1);
    assertTrue(hurried.partial());
    assertTrue(hurried.note().contains("cut short"), hurried.note());
    assertTrue(hurried.aligned() >= full.aligned(), hurried + " tighter than " + full);
  }
}
