package dev.tandem.api.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.topology.policy.AlignmentMode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Gang keys as each system puts them on its pods (the keys' sources: GangKeys' Javadoc). */
class GangKeysTest {

  @Test
  @DisplayName("no gang key: no gang, whatever else the pod says (a gang of one, as before)")
  void none() {
    assertEquals(Optional.empty(), GangKeys.of(pod(Map.of("app", "x"), Map.of())));
    assertEquals(
        Optional.empty(), GangKeys.of(pod(Map.of(), Map.of(GangKeys.RAIL_ALIGNMENT, "required"))));
    assertEquals(Optional.empty(), GangKeys.of(new Pod()));
  }

  @Test
  @DisplayName("Tandem: tandem.dev/gang, its rank and tandem.dev/rail-alignment")
  void tandem() {
    Gang g =
        gang(
            Map.of(),
            Map.of(
                "tandem.dev/gang", "train",
                "tandem.dev/gang-rank", "3",
                "tandem.dev/rail-alignment", "required"));
    assertEquals(new Gang("ml", "tandem", "train", 3, AlignmentMode.REQUIRED), g);
    assertEquals("ml/train", g.key());
  }

  @Test
  @DisplayName("coscheduling plugin: label scheduling.x-k8s.io/pod-group")
  void coscheduling() {
    assertEquals(
        new Gang("ml", "coscheduling", "pg1", null, AlignmentMode.PREFERRED),
        gang(
            Map.of("scheduling.x-k8s.io/pod-group", "pg1"),
            Map.of("tandem.dev/rail-alignment", "preferred")));
  }

  @Test
  @DisplayName("Volcano: either group annotation (or label), rank volcano.sh/task-index")
  void volcano() {
    assertEquals(
        new Gang("ml", "volcano", "job-1-uid", 2, null),
        gang(
            Map.of(),
            Map.of("scheduling.k8s.io/group-name", "job-1-uid", "volcano.sh/task-index", "2")));
    assertEquals(
        new Gang("ml", "volcano", "pg", null, null),
        gang(Map.of("scheduling.volcano.sh/group-name", "pg"), Map.of()));
  }

  @Test
  @DisplayName("Kueue: pod groups by label and index; else the admitted workload's annotation")
  void kueue() {
    assertEquals(
        new Gang("ml", "kueue-pod-group", "g", 1, null),
        gang(
            Map.of("kueue.x-k8s.io/pod-group-name", "g", "kueue.x-k8s.io/pod-group-pod-index", "1"),
            Map.of()));
    assertEquals(
        new Gang("ml", "kueue-workload", "job-train-3a1f", null, null),
        gang(Map.of(), Map.of("kueue.x-k8s.io/workload", "job-train-3a1f")));
  }

  @Test
  @DisplayName(
      "JobSet: jobset-name, rank job-global-index; a Kueue workload over it is the same gang")
  void jobset() {
    Gang g =
        gang(
            Map.of(
                "jobset.sigs.k8s.io/jobset-name", "train",
                "jobset.sigs.k8s.io/job-global-index", "5"),
            Map.of("kueue.x-k8s.io/workload", "jobset-train-1b2c"));
    assertEquals(new Gang("ml", "jobset", "train", 5, null), g);
  }

  @Test
  @DisplayName("LeaderWorkerSet: one gang per group, rank the worker index")
  void leaderWorkerSet() {
    assertEquals(
        new Gang("ml", "leaderworkerset", "serve/2", 0, null),
        gang(
            Map.of(
                "leaderworkerset.sigs.k8s.io/name", "serve",
                "leaderworkerset.sigs.k8s.io/group-index", "2",
                "leaderworkerset.sigs.k8s.io/worker-index", "0"),
            Map.of()));
  }

  @Test
  @DisplayName("Workload API: spec.schedulingGroup.podGroupName")
  void workloadApi() {
    Pod p =
        new PodBuilder(pod(Map.of(), Map.of()))
            .editOrNewSpec()
            .withNewSchedulingGroup()
            .withPodGroupName("pg-7")
            .endSchedulingGroup()
            .endSpec()
            .build();
    assertEquals(Optional.of(new Gang("ml", "workload-api", "pg-7", null, null)), GangKeys.of(p));
  }

  @Test
  @DisplayName("a declared gang over a JobSet takes the JobSet's rank; equal declarations agree")
  void declarationOverController() {
    assertEquals(
        new Gang("ml", "tandem", "train", 4, null),
        gang(
            Map.of(
                "scheduling.x-k8s.io/pod-group", "train",
                "jobset.sigs.k8s.io/jobset-name", "train-js",
                "jobset.sigs.k8s.io/job-global-index", "4"),
            Map.of("tandem.dev/gang", "train")));
  }

  @Test
  @DisplayName("two gangs declared, a bad rank, a bad rail alignment: refused naming the keys")
  void refusals() {
    InvalidGang two =
        assertThrows(
            InvalidGang.class,
            () ->
                GangKeys.of(
                    pod(
                        Map.of("scheduling.x-k8s.io/pod-group", "a"),
                        Map.of("scheduling.k8s.io/group-name", "b"))));
    assertEquals(
        "pod ml/w-0 is in more than one gang: label scheduling.x-k8s.io/pod-group=a, annotation"
            + " scheduling.k8s.io/group-name=b; keep one of them (or give them one name)",
        two.getMessage());
    InvalidGang rank =
        assertThrows(
            InvalidGang.class,
            () ->
                GangKeys.of(
                    pod(
                        Map.of(
                            "kueue.x-k8s.io/pod-group-name",
                            "g",
                            "kueue.x-k8s.io/pod-group-pod-index",
                            "-1"),
                        Map.of())));
    assertEquals(
        "pod ml/w-0: kueue.x-k8s.io/pod-group-pod-index='-1' is not a rank (an integer from 0)",
        rank.getMessage());
    InvalidGang mode =
        assertThrows(
            InvalidGang.class,
            () ->
                GangKeys.of(
                    pod(
                        Map.of(),
                        Map.of("tandem.dev/gang", "g", "tandem.dev/rail-alignment", "strict"))));
    assertEquals(
        "pod ml/w-0: tandem.dev/rail-alignment='strict' is not one of required, preferred",
        mode.getMessage());
  }

  private static Gang gang(Map<String, String> labels, Map<String, String> annotations) {
    return GangKeys.of(pod(labels, annotations)).orElseThrow();
  }

  private static Pod pod(Map<String, String> labels, Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("ml")
        .withName("w-0")
        .withLabels(labels)
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }
}
