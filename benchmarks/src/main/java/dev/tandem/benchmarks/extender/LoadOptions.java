package dev.tandem.benchmarks.extender;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The harness's settings: cluster sizes, client concurrency, and the bounds of every run.
 *
 * @param sizes cluster sizes; every request names all nodes of the cluster
 * @param verbs what to measure besides the floor: {@code filter} and {@code prioritize} send the
 *     same pod every time, {@code filter-mixed} and {@code prioritize-mixed} cycle through 512 pod
 *     shapes
 * @param concurrency requests in flight (connections)
 * @param gzip whether the client accepts gzip answers, as kube-scheduler's Go client does
 * @param warmup requests sent and discarded before each measurement
 * @param requests requests measured per verb and size (at most), split over the rounds
 * @param rounds rounds that interleave the verbs, so that noise weighs on all of them alike
 * @param cap longest measurement per verb and size; each warm-up is capped at half of it
 * @param seed seed of the cluster's allocated devices
 * @param names how the nodes are named
 */
record LoadOptions(
    List<Integer> sizes,
    List<String> verbs,
    int concurrency,
    boolean gzip,
    int warmup,
    int requests,
    int rounds,
    Duration cap,
    long seed,
    LoadCluster.Naming names) {

  static final List<String> VERBS =
      List.of("filter", "filter-mixed", "prioritize", "prioritize-mixed");

  static final String USAGE =
      """
      usage: run-extender-load [--sizes 1000,5000,15000] [--concurrency 4] [--warmup 300]
                               [--requests 2000] [--rounds 4] [--max-seconds 20] [--seed 42]
                               [--verbs filter,filter-mixed,prioritize,prioritize-mixed] [--gzip true]
                               [--names fixture|cloud]
      Drives the scheduler extender's /filter and /prioritize on 127.0.0.1 with kube-scheduler
      requests (nodeCacheCapable: true) naming every node of a cluster of each size, and a no-op
      verb that only decodes the request (the floor). Prints p50/p99 latency, throughput and the
      ratio to the floor. --names cloud names the nodes as EKS does (ip-10-0-12-34.ec2.internal:
      names that differ in the middle) instead of after the fixture (xe8640-h100x4-17).""";

  LoadOptions {
    if (sizes.isEmpty() || sizes.stream().anyMatch(s -> s < 1 || s > 100_000)) {
      throw new IllegalArgumentException("--sizes must list node counts between 1 and 100000");
    }
    if (verbs.isEmpty() || !VERBS.containsAll(verbs)) {
      throw new IllegalArgumentException("--verbs must list some of " + VERBS + ", got " + verbs);
    }
    if (concurrency < 1 || concurrency > 64) {
      throw new IllegalArgumentException("--concurrency must be 1..64, got " + concurrency);
    }
    if (warmup < 0 || requests < 1 || requests > 1_000_000) {
      throw new IllegalArgumentException("--warmup must be >= 0 and --requests 1..1000000");
    }
    if (rounds < 1 || rounds > 100) {
      throw new IllegalArgumentException("--rounds must be 1..100, got " + rounds);
    }
    if (cap.isNegative() || cap.isZero() || cap.toSeconds() > 600) {
      throw new IllegalArgumentException("--max-seconds must be 1..600");
    }
  }

  static LoadOptions parse(String... args) {
    List<Integer> sizes = List.of(1000, 5000, 15_000);
    List<String> verbs = VERBS;
    int concurrency = 4;
    boolean gzip = true;
    int warmup = 300;
    int requests = 2000;
    int rounds = 4;
    long seconds = 20;
    long seed = 42;
    LoadCluster.Naming names = LoadCluster.Naming.FIXTURE;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--help") || flag.equals("-h")) {
        throw new IllegalArgumentException(USAGE);
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value\n" + USAGE);
      }
      String value = args[++i];
      switch (flag) {
        case "--sizes" ->
            sizes =
                Arrays.stream(value.split(",")).map(String::trim).map(Integer::parseInt).toList();
        case "--verbs" -> verbs = Arrays.stream(value.split(",")).map(String::trim).toList();
        case "--concurrency" -> concurrency = Integer.parseInt(value);
        case "--gzip" -> gzip = Boolean.parseBoolean(value);
        case "--warmup" -> warmup = Integer.parseInt(value);
        case "--requests" -> requests = Integer.parseInt(value);
        case "--rounds" -> rounds = Integer.parseInt(value);
        case "--max-seconds" -> seconds = Long.parseLong(value);
        case "--seed" -> seed = Long.parseLong(value);
        case "--names" -> names = LoadCluster.Naming.parse(value);
        default -> throw new IllegalArgumentException("unknown flag " + flag + "\n" + USAGE);
      }
    }
    return new LoadOptions(
        sizes,
        verbs,
        concurrency,
        gzip,
        warmup,
        requests,
        rounds,
        Duration.ofSeconds(seconds),
        seed,
        names);
  }
}
