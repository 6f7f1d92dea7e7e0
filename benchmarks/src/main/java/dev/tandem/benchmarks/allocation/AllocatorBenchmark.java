package dev.tandem.benchmarks.allocation;

import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.List;
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
 * The allocator on a 16-GPU / 16-HCA node (two sockets, two-level PCIe switches) with half of the
 * devices taken — every other GPU and HCA, so each switch is half used — for request shapes up to 8
 * GPUs + 8 HCAs. Target: at most 2 µs per node per call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AllocatorBenchmark {

  @Param({"1+1", "2+2", "4+4", "8+8", "2+0", "4+2"})
  public String shape;

  @Param({"switch/required", "none/preferred"})
  public String policy;

  private Allocator allocator;
  private Availability halfTaken;
  private AllocationRequest request;

  @Setup
  public void setUp() {
    Machine machine = TestMachines.sixteenBySixteen();
    LocalityIndex index = LocalityIndex.of(machine);
    allocator = new Allocator(index);
    List<String> taken = new ArrayList<>();
    List<Device> gpus = machine.gpus();
    List<Device> hcas = machine.hcas();
    for (int i = 0; i < gpus.size(); i += 2) {
      taken.add(gpus.get(i).id());
      taken.add(hcas.get(i).id());
    }
    halfTaken = Availability.allFree(index, 1).without(taken);
    String[] counts = shape.split("\\+");
    String[] p = policy.split("/");
    request =
        new AllocationRequest(
            Integer.parseInt(counts[0]),
            Integer.parseInt(counts[1]),
            new AlignmentPolicy(Alignment.parse(p[0]), AlignmentMode.parse(p[1])));
  }

  @Benchmark
  public AllocationResult allocateHalfTaken() {
    return allocator.allocate(request, halfTaken);
  }
}
