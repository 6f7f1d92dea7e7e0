package dev.tandem.extender.demo;

import dev.tandem.agent.crd.NodeTopology;
import dev.tandem.agent.crd.NodeTopologyMapper;
import dev.tandem.agent.discovery.BundledFixture;
import dev.tandem.agent.discovery.DiscoveryOptions;
import dev.tandem.agent.discovery.TopologyDiscovery;
import dev.tandem.extender.kube.NodeTopologies;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded cluster with no Kubernetes API: nodes from real topologies, binds recorded in memory.
 * In demo mode the pod of a bind is the one last seen by filter or prioritize with that UID.
 */
public final class DemoCluster {

  private static final Logger LOG = LoggerFactory.getLogger(DemoCluster.class);
  private static final long ADMIT_MILLIS = 3000;

  private DemoCluster() {}

  /** One node per topology bundled in the agent jar, named after the file. */
  public static ClusterState fromBundledFixtures() {
    return of(bundledMachines());
  }

  /**
   * {@code nodes} nodes cycling through the bundled topologies, named {@code <fixture>-<i>}: a large
   * cluster for load tests.
   */
  public static ClusterState fromBundledFixtures(int nodes) {
    List<Machine> base = bundledMachines();
    List<Machine> out = new ArrayList<>(nodes);
    for (int i = 0; i < nodes; i++) {
      Machine m = base.get(i % base.size());
      out.add(new Machine(m.nodeName() + "-" + i, m.source(), m.pcie(), m.devices()));
    }
    return of(out);
  }

  /** DIR/*.xml (hwloc XML, node named after the file) and DIR/*.json|*.yaml (NodeTopology). */
  public static ClusterState fromDirectory(Path dir) {
    ClusterState state = empty();
    KubernetesSerialization serialization = new KubernetesSerialization();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        String name = f.getFileName().toString();
        if (name.endsWith(".xml")) {
          String node = name.substring(0, name.length() - 4);
          state.putTopology(TopologyDiscovery.discover(DiscoveryOptions.hwlocXml(node, f)).machine(),
              1, List.of());
        } else if (name.endsWith(".json") || name.endsWith(".yaml") || name.endsWith(".yml")) {
          NodeTopology nt = read(serialization, f);
          state.putTopology(NodeTopologyMapper.toMachine(nt), 1, NodeTopologies.allocations(nt));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list demo topologies in " + dir, e);
    }
    if (state.size() == 0) {
      throw new IllegalArgumentException("no *.xml, *.json or *.yaml topology in " + dir);
    }
    return state;
  }

  /** A demo cluster of the given machines, no allocations. */
  public static ClusterState of(List<Machine> machines) {
    ClusterState state = empty();
    machines.forEach(m -> state.putTopology(m, 1, List.of()));
    return state;
  }

  /** Frees every device: allocations and assumed plans are dropped. */
  public static void reset(ClusterState state) {
    for (NodeEntry e : state.nodes()) {
      e.assumed().keySet().forEach(state::release);
      state.putTopology(e.machine(), e.slotsPerHca(), List.of());
    }
  }

  private static ClusterState empty() {
    DemoWriter writer = new DemoWriter(ADMIT_MILLIS);
    ClusterState state = new ClusterState(Clock.systemUTC(), RecentPods.none(), writer, true);
    writer.attach(state);
    state.synced(true);
    state.leader(true);
    return state;
  }

  private static List<Machine> bundledMachines() {
    List<Machine> out = new ArrayList<>();
    for (BundledFixture f : TopologyDiscovery.bundledFixtures()) {
      try {
        out.add(TopologyDiscovery.discover(f, f.name()).machine());
      } catch (RuntimeException e) {
        LOG.warn("demo: skipping bundled topology {}: {}", f.name(), e.getMessage());
      }
    }
    if (out.isEmpty()) {
      throw new IllegalStateException("no bundled topology could be loaded (is libhwloc15 installed?)");
    }
    return out;
  }

  private static NodeTopology read(KubernetesSerialization serialization, Path f) throws IOException {
    try (InputStream in = Files.newInputStream(f)) {
      return serialization.unmarshal(in, NodeTopology.class);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("cannot read NodeTopology from " + f + ": " + e.getMessage(), e);
    }
  }
}
