package dev.tandem.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.sun.management.ThreadMXBean;
import dev.tandem.fixtures.HostileTopologies;
import dev.tandem.fixtures.HostileTopologies.Format;
import dev.tandem.fixtures.HostileTopologies.Mutation;
import dev.tandem.fixtures.Topologies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;

/**
 * The agent's {@code dump} on hostile topology files: a real fixture (hwloc XML or NCCL topology)
 * mutated by {@link HostileTopologies} from the fuzzer's choices (deep nesting, repeated elements,
 * huge values, extreme numbers, malformed UTF-8), written to a file and read through the real
 * command, libhwloc included. Properties:
 *
 * <ul>
 *   <li>exit 0 with a result, or exit 1 with one line naming the file; nothing else escapes;
 *   <li>one run allocates at most {@link #MAX_ALLOCATED} bytes, whatever the file's size;
 *   <li>no run takes more than 60 s, mutation included ({@code @Timeout}, which Jazzer turns into
 *       libFuzzer's {@code -timeout} when fuzzing);
 *   <li>a file that is not UTF-8 is never read as if it were;
 *   <li>no hwloc file nested deeper than {@link #LIBHWLOC_DEPTH} levels reaches libhwloc: its
 *       recursive import crashes the JVM with signal 11 not much deeper (500 to 700 levels on the
 *       agent's 256 KiB thread stack), which is why the mutations never nest an hwloc file deeper
 *       than {@link HostileTopologies#MAX_HWLOC_NESTING} and this property stands in for the crash.
 * </ul>
 *
 * The input chooses the kinds of mutation, the fixture, then each mutation's choices. {@code mvn
 * verify} replays the corpus (the findings on the tree before the limits, kept as regressions);
 * {@code benchmarks/run-fuzz} fuzzes it.
 */
class DumpTopologyFileFuzzTest {

  /** The most one run of {@code dump} may allocate (a real export takes about 10 MiB). */
  static final long MAX_ALLOCATED = 512L << 20;

  /** The deepest hwloc file that may reach libhwloc. */
  static final int LIBHWLOC_DEPTH = 256;

  private record Fixture(String text, Format format, String flag) {}

  private static final List<Fixture> FIXTURES = fixtures();
  private static final Path FILE = file();

  @FuzzTest(maxDuration = "5m")
  @Timeout(60)
  void dumpRefusesOrPrints(FuzzedDataProvider data) throws IOException {
    warmUp();
    Set<Mutation> kinds = kinds(data.consumeInt(1, (1 << Mutation.values().length) - 1));
    Fixture fixture = FIXTURES.get(data.consumeInt(0, FIXTURES.size() - 1));
    byte[] bytes = HostileTopologies.mutate(fixture.text(), fixture.format(), choices(data), kinds);
    Files.write(FILE, bytes);

    long before = allocated();
    DumpRun run = DumpRun.dump(fixture.flag(), FILE.toString(), "--node-name", "fuzz");
    long allocated = allocated() - before;

    assertTrue(run.code() == 0 || run.code() == 1, "exit " + run.code() + ": " + run.err());
    if (run.code() == 1) {
      assertTrue(run.err().startsWith("node-topology-agent dump: "), run.err());
      assertTrue(run.err().contains(FILE.toString()), run.err());
      assertEquals(1, run.err().lines().count(), run.err());
    } else {
      assertFalse(run.out().isEmpty());
      assertTrue(utf8(bytes), "a file that is not UTF-8 was read as if it were");
    }
    assertTrue(
        allocated <= MAX_ALLOCATED,
        "dump allocated "
            + (allocated >> 20)
            + " MiB for a file of "
            + (bytes.length >> 10)
            + " KiB");
    if (fixture.format() == Format.HWLOC && (run.code() == 0 || run.err().contains("libhwloc"))) {
      int depth = HostileTopologies.depth(new String(bytes, StandardCharsets.UTF_8));
      assertTrue(depth <= LIBHWLOC_DEPTH, "a file nested " + depth + " levels reached libhwloc");
    }
  }

  private static boolean warm;

  /**
   * One {@code dump} of every fixture, unmutated, before the first input: when fuzzing, Jazzer
   * instruments each class on the thread that first loads it, and that counted as the input's
   * allocation (an 86 KiB file "allocated" 1,060 MiB on its first run, 49 MiB on a later one).
   */
  private static void warmUp() throws IOException {
    if (warm) {
      return;
    }
    for (Fixture f : FIXTURES) {
      Files.writeString(FILE, f.text());
      DumpRun.dump(f.flag(), FILE.toString(), "--node-name", "fuzz");
    }
    warm = true;
  }

  /**
   * The fuzzer's choices while its input lasts, then choices of a generator seeded by it: libFuzzer
   * starts with inputs of a few bytes, which would otherwise choose the smallest of everything.
   */
  private static HostileTopologies.Choices choices(FuzzedDataProvider data) {
    Random more = new Random(data.consumeLong());
    return (min, max) ->
        data.remainingBytes() > 0
            ? data.consumeInt(min, max)
            : (int) (min + Math.floorMod(more.nextLong(), (long) max - min + 1));
  }

  private static List<Fixture> fixtures() {
    List<Fixture> out = new ArrayList<>();
    Path dir = Topologies.directory();
    add(out, dir, Format.HWLOC, "--hwloc-xml");
    add(out, dir.resolve("nccl-topo"), Format.NCCL, "--nccl-topo");
    return out;
  }

  private static void add(List<Fixture> out, Path dir, Format format, String flag) {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".xml")).sorted().toList()) {
        out.add(new Fixture(Files.readString(f), format, flag));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The kinds of mutation whose bits are set in {@code mask} (bit 0: the first kind). */
  private static Set<Mutation> kinds(int mask) {
    Set<Mutation> out = EnumSet.noneOf(Mutation.class);
    for (Mutation m : Mutation.values()) {
      if ((mask >> m.ordinal() & 1) != 0) {
        out.add(m);
      }
    }
    return out;
  }

  private static Path file() {
    try {
      Path dir = Files.createTempDirectory("dump-fuzz");
      dir.toFile().deleteOnExit();
      Path file = dir.resolve("topology.xml");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long allocated() {
    return ((ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
  }

  private static boolean utf8(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
