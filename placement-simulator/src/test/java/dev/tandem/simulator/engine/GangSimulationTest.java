package dev.tandem.simulator.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.simulator.SmallClusters;
import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.policy.HintMode;
import dev.tandem.simulator.policy.JointMode;
import dev.tandem.simulator.workload.GangMember;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.simulator.workload.Shape;
import dev.tandem.simulator.workload.WorkloadGenerator;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.rail.RailSets;
import dev.tandem.topology.rail.Rails;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Gangs on two nodes of eight switches, each switch one GPU and one HCA; HCA k is on rail k (PCI
 * order).
 */
class GangSimulationTest {

  private static final Machine EIGHT = Rails.byPciOrder(SmallClusters.eightPairs("n")).machine();
  private static final Cluster TWO = SmallClusters.of(EIGHT, 2);

  private static PodSpec alone(int id, double at, int n, double duration) {
    return new PodSpec(id, at, n, n, AlignmentPolicy.DEFAULT, duration);
  }

  private static PodSpec member(
      int id, double at, int n, String gang, int size, AlignmentMode rails) {
    return new PodSpec(
        id, at, n, n, AlignmentPolicy.DEFAULT, 100, new GangMember(gang, size, null, rails));
  }

  private static GangFigure run(PlacementPolicy policy, List<PodSpec> pods) {
    return new Simulation(TWO, pods, RunLimits.of(0, 42)).run(policy, share -> {}).gangs();
  }

  /** The HCA on rail k and the GPU of its switch. */
  private static List<String> pairs(int... rails) {
    List<String> out = new ArrayList<>();
    for (int k : rails) {
      Device hca = EIGHT.hcas().stream().filter(h -> h.hca().rail() == k).findFirst().orElseThrow();
      out.add(EIGHT.gpus().get(k).id());
      out.add(hca.id());
    }
    return out;
  }

  /** Places pod i where it is told to. */
  private record Fixed(Map<Integer, Placement> where) implements PlacementPolicy {
    @Override
    public String name() {
      return "fixed";
    }

    @Override
    public String description() {
      return "as the test says";
    }

    @Override
    public Decision place(PodSpec pod, ClusterState state, Random random) {
      return new Decision.Placed(where.get(pod.id()));
    }
  }

  private static Placement on(int node, int... rails) {
    List<String> ids = pairs(rails);
    List<String> gpus = new ArrayList<>();
    List<String> hcas = new ArrayList<>();
    for (int i = 0; i < ids.size(); i += 2) {
      gpus.add(ids.get(i));
      hcas.add(ids.get(i + 1));
    }
    return new Placement(node, gpus, hcas);
  }

  @Test
  @DisplayName("a gang of three on rails {0,1}, {0,1} and {2,3}: two cross-rail pairs of three")
  void crossRailCount() {
    List<PodSpec> pods =
        List.of(
            member(0, 0, 2, "g", 3, AlignmentMode.PREFERRED),
            member(1, 0, 2, "g", 3, AlignmentMode.PREFERRED),
            member(2, 0, 2, "g", 3, AlignmentMode.PREFERRED));
    GangFigure f = run(new Fixed(Map.of(0, on(0, 0, 1), 1, on(1, 0, 1), 2, on(1, 2, 3))), pods);
    assertEquals(new GangFigure(1, 3, 1, 1, 3, 2, 1), f);
    assertEquals(1.0, f.splitShare());
  }

  @Test
  @DisplayName("joint mode puts both members on the rails a half-used node has free")
  void jointKeepsOneRailSet() {
    List<PodSpec> pods =
        List.of(
            alone(0, 0, 4, 1000),
            member(1, 1, 4, "g", 2, AlignmentMode.REQUIRED),
            member(2, 1, 4, "g", 2, AlignmentMode.REQUIRED));
    GangFigure f = run(new JointMode(), pods);
    assertEquals(new GangFigure(1, 2, 1, 1, 1, 0, 0), f);
  }

  @Test
  @DisplayName("a member that cannot get the gang's rails: turned away if required, else split")
  void requiredAndPreferred() {
    for (AlignmentMode mode : AlignmentMode.values()) {
      List<PodSpec> pods =
          List.of(
              alone(0, 0, 4, 1000),
              alone(1, 0, 4, 1000),
              member(2, 1, 4, "g", 2, mode),
              member(3, 1, 4, "g", 2, mode));
      GangFigure f = run(new JointMode(), pods);
      if (mode == AlignmentMode.REQUIRED) {
        assertEquals(new GangFigure(1, 1, 0, 0, 0, 0, 0), f, "required");
      } else {
        assertEquals(new GangFigure(1, 2, 1, 1, 1, 1, 1), f, "preferred");
      }
    }
  }

  @Test
  @DisplayName("a trace of gangs of one places every pod as the same trace without gangs")
  void gangOfOneChangesNothing() {
    List<PodSpec> plain =
        new WorkloadGenerator(Shape.parseMix("1+1:4,2+2:3,4+4:2,8+8:1"), 0.9, 600, 300, 3)
            .generate(16);
    List<PodSpec> ones = new ArrayList<>();
    for (PodSpec p : plain) {
      ones.add(
          new PodSpec(
              p.id(),
              p.arrival(),
              p.gpus(),
              p.hcas(),
              p.policy(),
              p.duration(),
              new GangMember("g" + p.id(), 1, 0, AlignmentMode.REQUIRED)));
    }
    for (PlacementPolicy policy : List.of(new JointMode(), new HintMode())) {
      PolicyResult a = new Simulation(TWO, plain, RunLimits.of(0, 7)).run(policy, s -> {});
      PolicyResult b = new Simulation(TWO, ones, RunLimits.of(0, 7)).run(policy, s -> {});
      assertEquals(a.placed(), b.placed(), policy.name());
      assertEquals(a.aligned(), b.aligned(), policy.name());
      assertEquals(a.samples(), b.samples(), policy.name());
      assertEquals(null, a.gangs());
      assertEquals(new GangFigure(300, b.placed(), b.placed(), 0, 0, 0, 0), b.gangs());
    }
  }

  @Test
  @DisplayName("the first member takes the rails that leave the most members placeable")
  void firstMemberChoosesRails() {
    ClusterState state = new ClusterState(SmallClusters.of(EIGHT, 3));
    state.node(0).take(-1, pairs(4, 5, 6, 7));
    state.node(1).take(-2, pairs(0));
    state.node(2).take(-3, pairs(0));
    Placement alone = placed(new JointMode().place(alone(0, 0, 4, 10), state, new Random(1)));
    assertEquals(List.of(0, Set.of(0, 1, 2, 3)), List.of(alone.node(), rails(alone)));
    Placement first =
        placed(
            new JointMode()
                .place(member(0, 0, 4, "g", 3, AlignmentMode.REQUIRED), state, new Random(1)));
    assertEquals(Set.of(1, 2, 3, 4), rails(first));
  }

  private static Placement placed(Decision d) {
    return ((Decision.Placed) d).placement();
  }

  private static Set<Integer> rails(Placement p) {
    return RailSets.of(EIGHT, p.hcaIds());
  }
}
