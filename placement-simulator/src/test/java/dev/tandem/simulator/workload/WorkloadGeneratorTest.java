package dev.tandem.simulator.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
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
}
