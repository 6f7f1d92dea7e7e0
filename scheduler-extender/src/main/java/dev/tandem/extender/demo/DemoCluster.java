package dev.tandem.extender.demo;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.extender.kube.NodeTopologies;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * An embedded cluster with no Kubernetes API: nodes from real topologies, binds recorded in memory.
 * In demo mode the pod of a bind is the one last seen by filter or prioritize with that UID.
 */
public final class DemoCluster {

  private static final long ADMIT_MILLIS = 3000;

  private DemoCluster() {}

  /** Where the bundled NodeTopology objects sit on the classpath, with an index of their names. */
  static final String BUNDLED = "demo/";

  /**
   * One node per bundled topology (real servers' hwloc and NCCL exports, test-fixtures' Grace
   * trays), named after the file.
   */
  public static ClusterParts fromBundledFixtures() {
    return of(bundledMachines());
  }

  /**
   * {@code nodes} nodes cycling through the bundled topologies, named {@code <fixture>-<i>}: a
   * large cluster for load tests.
   */
  public static ClusterParts fromBundledFixtures(int nodes) {
    List<Machine> base = bundledMachines();
    List<Machine> out = new ArrayList<>(nodes);
    for (int i = 0; i < nodes; i++) {
      Machine m = base.get(i % base.size());
      out.add(new Machine(m.nodeName() + "-" + i, m.source(), m.pcie(), m.devices()));
    }
    return of(out);
  }

  /**
   * DIR/*.json|*.yaml|*.yml, each a NodeTopology object (as {@code kubectl get nodetopology -o
   * yaml} or {@code node-topology-agent dump} prints it), with its allocations.
   *
   * @throws IllegalArgumentException naming the file that cannot be read, an hwloc XML file (with
   *     the command that converts it), or a directory without any topology
   */
  public static ClusterParts fromDirectory(Path dir) {
    ClusterParts cluster = empty();
    ClusterState state = cluster.state();
    KubernetesSerialization serialization = new KubernetesSerialization();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        String name = f.getFileName().toString();
        if (name.endsWith(".xml")) {
          throw new IllegalArgumentException(
              f
                  + " is an XML file; the demo reads NodeTopology objects:"
                  + " convert it with 'java -jar node-topology-agent.jar dump --hwloc-xml "
                  + f
                  + " --node-name "
                  + name.substring(0, name.length() - 4)
                  + "' (or --nccl-topo for an"
                  + " NCCL topology file) into a .json file");
        } else if (name.endsWith(".json") || name.endsWith(".yaml") || name.endsWith(".yml")) {
          try (InputStream in = Files.newInputStream(f)) {
            put(state, read(serialization, in, f.toString()));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list demo topologies in " + dir, e);
    }
    if (state.size() == 0) {
      throw new IllegalArgumentException("no *.json or *.yaml NodeTopology in " + dir);
    }
    return cluster;
  }

  /** A demo cluster of the given machines, no allocations. */
  public static ClusterParts of(List<Machine> machines) {
    ClusterParts cluster = empty();
    machines.forEach(m -> cluster.state().putTopology(m, 1, List.of()));
    return cluster;
  }

  private static ClusterParts empty() {
    DemoWriter writer = new DemoWriter(ADMIT_MILLIS);
    ClusterParts cluster = ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), writer);
    writer.attach(cluster.state());
    cluster.readiness().synced(true);
    cluster.readiness().leader(true);
    return cluster;
  }

  private static List<Machine> bundledMachines() {
    KubernetesSerialization serialization = new KubernetesSerialization();
    List<Machine> out = new ArrayList<>();
    for (String name : bundledNames()) {
      try (InputStream in = resource(BUNDLED + name + ".json")) {
        out.add(
            NodeTopologyMapper.toMachine(read(serialization, in, "classpath:" + BUNDLED + name)));
      } catch (IOException e) {
        throw new UncheckedIOException("bundled topology " + name + " cannot be read", e);
      }
    }
    return out;
  }

  /** The names of the bundled topologies, from {@code demo/index.txt}. */
  static List<String> bundledNames() {
    try (InputStream in = resource(BUNDLED + "index.txt")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .map(String::strip)
          .filter(l -> !l.isEmpty())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("the demo's topology index cannot be read", e);
    }
  }

  private static InputStream resource(String name) {
    InputStream in = DemoCluster.class.getClassLoader().getResourceAsStream(name);
    if (in == null) {
      throw new IllegalStateException(
          name + " is not on the classpath: the extender jar is incomplete");
    }
    return in;
  }

  private static void put(ClusterState state, NodeTopology nt) {
    state.putTopology(
        NodeTopologyMapper.toMachine(nt, state.sharing()),
        1,
        NodeTopologies.allocations(nt, ResourceNames.DEFAULT));
  }

  private static NodeTopology read(
      KubernetesSerialization serialization, InputStream in, String what) {
    try {
      return serialization.unmarshal(in, NodeTopology.class);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot read NodeTopology from " + what + ": " + e.getMessage(), e);
    }
  }
}
