package dev.tandem.simulator;

import dev.tandem.simulator.cluster.ClusterSpec;
import dev.tandem.simulator.policy.Policies;
import dev.tandem.simulator.workload.GangMember;
import dev.tandem.simulator.workload.GangMix;
import dev.tandem.simulator.workload.Shape;
import dev.tandem.topology.policy.AlignmentMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The command line of {@code tandem simulate}.
 *
 * @param clusters {@code --cluster FILE[:COUNT]}, at least one
 * @param trace {@code --trace FILE}, or null to generate
 * @param shapes {@code --shapes}, the generator's mix
 * @param load {@code --load}, the generator's target GPU load
 * @param pods {@code --pods}, how many pods to generate
 * @param meanDuration {@code --mean-duration}, seconds
 * @param seed {@code --seed}
 * @param gangs {@code --gang-share}, {@code --gang-size}, {@code --gang-shape}, {@code
 *     --rail-alignment}: the generator's gangs
 * @param policies {@code --policies}, comma-separated
 * @param maxWait {@code --max-wait}, seconds a pod may stay pending (0: loss system)
 * @param maxSeconds {@code --max-seconds}, wall-clock limit of the whole run (0: none)
 * @param json {@code --json FILE}, or null
 * @param html {@code --html FILE}, or null
 * @param progress false with {@code --quiet}
 */
record SimulateOptions(
    List<ClusterSpec> clusters,
    Path trace,
    List<Shape> shapes,
    double load,
    int pods,
    double meanDuration,
    long seed,
    GangMix gangs,
    List<String> policies,
    double maxWait,
    double maxSeconds,
    Path json,
    Path html,
    boolean progress) {

  static final String USAGE =
      """
      usage: tandem simulate --cluster FILE[:COUNT]... [workload] [options]

      Replays a workload on a cluster and compares placement policies with topology-core's
      allocator: Tandem joint mode, Tandem hint mode, stock Kubernetes, the kubelet Topology
      Manager (single-numa-node) and the optimum.

      cluster (repeat --cluster):
        --cluster FILE[:COUNT]  hwloc XML export, NCCL topology file, or a NodeTopology dump
                                (kubectl get nodetopologies -o json), COUNT nodes of each
      workload (a trace, or a seeded generator):
        --trace FILE            CSV (arrival,gpus,hcas,policy,duration) or JSON array; seconds;
                                optional gang columns gang,gang-size,gang-rank,rail-alignment
        --pods N                pods to generate (default 2000)
        --load X                share of the cluster's GPUs requested on average (default 0.8)
        --shapes MIX            GPUS+HCAS:WEIGHT,... (default 1+1:4,2+2:3,4+4:2,8+8:1)
        --mean-duration S       mean pod run time in seconds (default 3600)
        --seed N                seed of the generator and of random choices (default 1)
        --gang-share X          share of jobs that are gangs, 0 to 1 (default 0: none)
        --gang-size N           members per gang (default 4)
        --gang-shape G+H        GPUs and HCAs per member (default 4+4)
        --rail-alignment MODE   the members' rail alignment: required or preferred
                                (default preferred)
      options:
        --policies LIST         joint,joint-binpack,joint-smallest-first,joint-no-gangs,
                                hint,stock,topology-manager,dra,dra-tandem-score,dra-ext,
                                dra-ext-tandem-score,optimum
                                (default all)
        --max-wait S            seconds a pod may stay pending before it is turned away
                                (default 0: placed on arrival or turned away, as the optimum)
        --max-seconds S         stop after S seconds of wall clock with the results so far
        --json FILE             write the report as JSON (default: standard output)
        --html FILE             write the report as one self-contained HTML page
        --quiet                 no progress bar
        --help                  this text
      """;

  static final String DEFAULT_SHAPES = "1+1:4,2+2:3,4+4:2,8+8:1";

  /**
   * @throws UsageException naming the flag at fault
   */
  static SimulateOptions parse(String[] args) {
    Builder b = new Builder();
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--quiet")) {
        b.progress = false;
        continue;
      }
      if (!flag.startsWith("--") || i + 1 >= args.length) {
        throw new UsageException(
            flag.startsWith("--") ? flag + " needs a value" : "unexpected argument '" + flag + "'");
      }
      b.set(flag, args[++i]);
    }
    return b.build();
  }

  /** Collects flags, then checks them together. */
  private static final class Builder {
    final List<ClusterSpec> clusters = new ArrayList<>();
    Path trace;
    String shapes = DEFAULT_SHAPES;
    double load = 0.8;
    int pods = 2000;
    double meanDuration = 3600;
    long seed = 1;
    double gangShare;
    int gangSize = 4;
    String gangShape = "4+4";
    AlignmentMode railAlignment = AlignmentMode.PREFERRED;
    List<String> policies = defaultPolicies();
    double maxWait;
    double maxSeconds;
    Path json;
    Path html;
    boolean progress = true;

    void set(String flag, String value) {
      switch (flag) {
        case "--cluster" -> clusters.add(clusterSpec(value));
        case "--trace" -> trace = Path.of(value);
        case "--shapes" -> shapes = value;
        case "--load" -> load = positive(flag, value);
        case "--pods" -> pods = (int) positive(flag, value);
        case "--mean-duration" -> meanDuration = positive(flag, value);
        case "--seed" -> seed = (long) number(flag, value);
        case "--gang-share" -> gangShare = nonNegative(flag, value);
        case "--gang-size" -> gangSize = (int) positive(flag, value);
        case "--gang-shape" -> gangShape = value;
        case "--rail-alignment" -> railAlignment = railAlignment(value);
        case "--policies" -> policies = policies(value);
        case "--max-wait" -> maxWait = nonNegative(flag, value);
        case "--max-seconds" -> maxSeconds = positive(flag, value);
        case "--json" -> json = Path.of(value);
        case "--html" -> html = Path.of(value);
        default -> throw new UsageException("unknown flag " + flag + " (see --help)");
      }
    }

    SimulateOptions build() {
      if (clusters.isEmpty()) {
        throw new UsageException("--cluster is required (a topology file, e.g. FILE.xml:40)");
      }
      List<Shape> mix;
      try {
        mix = Shape.parseMix(shapes);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--shapes: " + e.getMessage());
      }
      return new SimulateOptions(
          List.copyOf(clusters),
          trace,
          mix,
          load,
          pods,
          meanDuration,
          seed,
          gangs(),
          List.copyOf(policies),
          maxWait,
          maxSeconds,
          json,
          html,
          progress);
    }

    private GangMix gangs() {
      Shape shape;
      try {
        shape = Shape.parseMix(gangShape).get(0);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--gang-shape: " + e.getMessage());
      }
      if (gangShare > 1 || gangShape.contains(",") || gangShape.contains(":")) {
        throw new UsageException(
            gangShare > 1
                ? "--gang-share: must be from 0 to 1, got " + gangShare
                : "--gang-shape: one shape GPUS+HCAS, e.g. 4+4, got " + gangShape);
      }
      return new GangMix(gangShare, gangSize, shape.gpus(), shape.hcas(), railAlignment);
    }

    private static AlignmentMode railAlignment(String value) {
      try {
        return GangMember.railAlignment(value);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--rail-alignment: " + e.getMessage());
      }
    }

    private static ClusterSpec clusterSpec(String value) {
      try {
        return ClusterSpec.parse(value);
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
    }

    private static List<String> defaultPolicies() {
      List<String> all = new ArrayList<>(Policies.NAMES);
      all.add("optimum");
      return all;
    }

    private static List<String> policies(String value) {
      List<String> out = Arrays.stream(value.split(",")).map(String::trim).toList();
      for (String p : out) {
        if (!p.equals("optimum")) {
          try {
            Policies.byName(p);
          } catch (IllegalArgumentException e) {
            throw new UsageException("--policies: " + e.getMessage());
          }
        }
      }
      return out;
    }

    private static double number(String flag, String value) {
      try {
        return Double.parseDouble(value);
      } catch (NumberFormatException e) {
        throw new UsageException(flag + ": '" + value + "' is not a number");
      }
    }

    private static double positive(String flag, String value) {
      double d = number(flag, value);
      if (!(d > 0)) {
        throw new UsageException(flag + ": must be above 0, got " + value);
      }
      return d;
    }

    private static double nonNegative(String flag, String value) {
      double d = number(flag, value);
      if (!(d >= 0)) {
        throw new UsageException(flag + ": must be 0 or more, got " + value);
      }
      return d;
    }
  }
}
