package dev.tandem.deviceplugin.hostile;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.sun.management.ThreadMXBean;
import dev.tandem.deviceplugin.config.Mode;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.config.Selectors;
import dev.tandem.deviceplugin.gpu.DriverProcfs;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.inventory.PortStates;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.sysfs.SysfsReader;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.HostileSysfs;
import dev.tandem.fixtures.HostileSysfs.Mutation;
import dev.tandem.fixtures.HostileTopologies;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;

/**
 * The plugin's readers of sysfs on a damaged tree: a machine's tree as the kernel lays it out
 * ({@link FakeSysfs}: PCI functions, HCAs with their ports, uverbs devices and netdevs, SR-IOV VFs,
 * the NVIDIA driver's procfs), changed by {@link HostileSysfs} (files emptied, grown to 16 MiB,
 * binary, not UTF-8, numbers at extremes; files and links removed; link loops; links to {@code
 * /dev/zero}; directories where files were), then read the way the plugin reads it: discovery
 * ({@code SysfsReader.read}, and {@code withHcaDetails} over the undamaged machine, as after
 * hwloc), the inventory of each mode, port states ({@link PortStates}) and the driver's GPU view
 * ({@link DriverProcfs}). Properties: each read returns, or is refused with a {@link
 * DiscoveryException} naming the tree; one run allocates at most {@link #MAX_ALLOCATED} bytes and
 * takes at most 60 s, building the tree included.
 */
class SysfsTreeFuzzTest {

  /** The most one run's reads may allocate; a whole tree's discovery takes about 1 MiB. */
  static final long MAX_ALLOCATED = 64L << 20;

  private static final List<Machine> MACHINES =
      List.of(
          TestMachines.twoSockets("n1"),
          TestMachines.withVirtualFunctions(TestMachines.twoSockets("n1"), "mlx5_0", "vf0", "vf1"),
          TestMachines.withoutRdmaDriver(TestMachines.twoSockets("n1"), "mlx5_1"),
          TestMachines.gpusOnRootPorts("n1"));

  private static final Path ROOT = root();

  @FuzzTest(maxDuration = "60s")
  @Timeout(60)
  void readsOrRefusesNamingTheTree(FuzzedDataProvider data) throws IOException {
    Machine machine = MACHINES.get(data.consumeInt(0, MACHINES.size() - 1));
    List<Mutation> kinds = kinds(data.consumeInt(1, (1 << Mutation.values().length) - 1));
    int count = data.consumeInt(1, 6);
    HostileTopologies.Choices choices = InputChoices.of(data);
    clear(ROOT);
    FakeSysfs.write(ROOT, machine);
    for (Device gpu : machine.gpus()) {
      FakeSysfs.nvidiaGpu(ROOT, gpu);
    }
    List<String> done = HostileSysfs.mutate(ROOT, kinds, count, choices);

    long first = allocatedReading(machine, done);
    // the first run of a code path also loads (and when fuzzing, instruments) its classes on this
    // thread: a run over the bound is measured again on the same tree
    long allocated = first <= MAX_ALLOCATED ? first : allocatedReading(machine, done);
    assertTrue(
        allocated <= MAX_ALLOCATED,
        () -> "reading allocated " + (allocated >> 20) + " MiB after " + done);
  }

  private static long allocatedReading(Machine machine, List<String> done) {
    long before = allocated();
    read(machine, done);
    return allocated() - before;
  }

  private static void read(Machine machine, List<String> done) {
    Discovery found;
    try {
      found = SysfsReader.read(ROOT, "fuzz", List.of());
    } catch (DiscoveryException e) {
      assertTrue(e.getMessage().contains(ROOT.toString()), () -> e.getMessage() + " after " + done);
      return;
    }
    List<String> notes = new ArrayList<>();
    Machine detailed = SysfsReader.withHcaDetails(machine, ROOT, notes);
    for (Mode mode : Mode.values()) {
      ResourceConfig config =
          new ResourceConfig(
              mode, "rdma/hca", mode == Mode.SHARED ? 4 : 1, Selectors.ALL, Duration.ofSeconds(10));
      Inventory.of(found.machine(), config);
      Inventory.of(detailed, config);
    }
    PortStates ports = new PortStates(ROOT);
    for (Device hca : machine.hcas()) {
      if (hca.hca().ibDevice() != null) {
        ports.healthy(hca.hca().ibDevice());
      }
    }
    DriverProcfs driver = new DriverProcfs(ROOT);
    machine.gpus().forEach(driver::healthy);
  }

  private static List<Mutation> kinds(int mask) {
    List<Mutation> out = new ArrayList<>();
    for (Mutation m : Mutation.values()) {
      if ((mask >> m.ordinal() & 1) != 0) {
        out.add(m);
      }
    }
    return out;
  }

  private static void clear(Path root) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        if (!p.equals(root)) {
          Files.delete(p);
        }
      }
    }
  }

  private static Path root() {
    try {
      Path dir = Files.createTempDirectory("sysfs-fuzz");
      dir.toFile().deleteOnExit();
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long allocated() {
    return ((ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }
}
