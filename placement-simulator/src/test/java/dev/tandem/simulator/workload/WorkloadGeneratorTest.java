package dev.tandem.simulator.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.policy.AlignmentMode;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class WorkloadGeneratorTest {

  private static final List<Shape> MIX = Shape.parseMix("1+1:4,2+2:3,4+4:2,8+8:1");

  @Test
  @DisplayName("same seed, same trace; another seed, another trace")
  void seeded() {
    assertEquals(gen(1).generate(64), gen(1).generate(64));
    assertNotEquals(gen(1).generate(64), gen(2).generate(64));
  }

  @Test
  @DisplayName("the GPUs requested over time average the target load (Little's law)")
  void reachesTheLoad() {
    List<PodSpec> pods = new WorkloadGenerator(MIX, 0.8, 100, 20_000, 7).generate(100);
    double gpuSeconds = pods.stream().mapToDouble(p -> p.gpus() * p.duration()).sum();
    double span = pods.get(pods.size() - 1).arrival();
    assertEquals(0.8, gpuSeconds / span / 100, 0.05);
  }

  private static WorkloadGenerator gen(long seed) {
    return new WorkloadGenerator(MIX, 0.8, 600, 50, seed);
  }

  private static final GangMix GANGS = new GangMix(0.25, 4, 4, 4, AlignmentMode.REQUIRED);

  @Test
  @DisplayName("gangs are seeded: same seed, same gangs; without gangs, the trace of before")
  void gangsSeeded() {
    WorkloadGenerator a = new WorkloadGenerator(MIX, 0.8, 600, 400, 5, GANGS);
    assertEquals(a.generate(64), new WorkloadGenerator(MIX, 0.8, 600, 400, 5, GANGS).generate(64));
    assertNotEquals(
        a.generate(64), new WorkloadGenerator(MIX, 0.8, 600, 400, 6, GANGS).generate(64));
    assertEquals(
        gen(1).generate(64),
        new WorkloadGenerator(MIX, 0.8, 600, 50, 1, GangMix.NONE).generate(64));
  }

  @Test
  @DisplayName("a gang's members arrive together, run as long, ranks 0..N-1; a share of jobs")
  void gangShape() {
    List<PodSpec> pods = new WorkloadGenerator(MIX, 0.8, 600, 8_000, 5, GANGS).generate(64);
    Map<String, List<PodSpec>> byGang =
        pods.stream()
            .filter(p -> p.gang() != null)
            .collect(Collectors.groupingBy(p -> p.gang().name()));
    long singles = pods.stream().filter(p -> p.gang() == null).count();
    for (List<PodSpec> members : byGang.values()) {
      assertEquals(4, members.size());
      assertEquals(
          1, members.stream().map(p -> List.of(p.arrival(), p.duration())).distinct().count());
      assertEquals(
          List.of(0, 1, 2, 3), members.stream().map(p -> p.gang().rank()).sorted().toList());
      assertTrue(members.stream().allMatch(p -> p.shape().equals("4+4")));
    }
    assertEquals(0.25, byGang.size() / (double) (byGang.size() + singles), 0.02);
  }

  @Test
  @DisplayName("with gangs the GPUs requested still average the target load")
  void gangsReachTheLoad() {
    List<PodSpec> pods = new WorkloadGenerator(MIX, 0.8, 100, 20_000, 7, GANGS).generate(100);
    double gpuSeconds = pods.stream().mapToDouble(p -> p.gpus() * p.duration()).sum();
    double span = pods.get(pods.size() - 1).arrival();
    assertEquals(0.8, gpuSeconds / span / 100, 0.05);
  }
}
