package dev.tandem.benchmarks.allocation;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * The allocator benchmark's cases measured in thread CPU time rather than wall time: on a shared,
 * loaded machine wall time mostly measures the other processes, CPU time measures the allocator.
 * Prints one line per case: CPU nanoseconds per call (median of 7 rounds of 200,000 calls).
 *
 * <p>Run with {@code java -cp benchmarks/target/benchmarks.jar
 * dev.tandem.benchmarks.allocation.AllocatorCpuTime}.
 */
public final class AllocatorCpuTime {

  private static final int CALLS = 200_000;
  private static final int ROUNDS = 7;

  private AllocatorCpuTime() {}

  public static void main(String[] args) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    System.out.printf("%-16s %-6s %12s%n", "policy", "shape", "cpu ns/call");
    for (String policy : new String[] {"switch/required", "none/preferred"}) {
      for (String shape : new String[] {"1+1", "2+2", "4+4", "8+8", "2+0", "4+2"}) {
        AllocatorBenchmark b = new AllocatorBenchmark();
        b.shape = shape;
        b.policy = policy;
        b.setUp();
        long[] perCall = new long[ROUNDS];
        for (int i = 0; i < CALLS; i++) {
          b.allocateHalfTaken();
        }
        for (int r = 0; r < ROUNDS; r++) {
          long start = threads.getCurrentThreadCpuTime();
          for (int i = 0; i < CALLS; i++) {
            b.allocateHalfTaken();
          }
          perCall[r] = (threads.getCurrentThreadCpuTime() - start) / CALLS;
        }
        Arrays.sort(perCall);
        System.out.printf("%-16s %-6s %12d%n", policy, shape, perCall[ROUNDS / 2]);
      }
    }
  }
}
