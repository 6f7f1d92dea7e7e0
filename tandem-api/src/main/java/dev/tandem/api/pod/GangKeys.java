package dev.tandem.api.pod;

import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.InvalidPolicyException;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Reads a pod's {@link Gang} from the keys the systems people run put on it (docs/rails.md,
 * "Gangs"). Pure. Two kinds of key:
 *
 * <ul>
 *   <li><b>Declarations</b>, a gang someone named: Tandem's {@code tandem.dev/gang} (rank {@code
 *       tandem.dev/gang-rank}); the Kubernetes Workload API's {@code spec.schedulingGroup
 *       .podGroupName} (feature gate {@code GenericWorkload}; the field as fabric8
 *       kubernetes-model-core 7.8.0's {@code PodSpec.getSchedulingGroup} has it, whose {@code
 *       PodSpec} no longer carries the earlier alpha's {@code workloadRef}; the PodGroup API builds
 *       on kubernetes/enhancements {@code keps/sig-scheduling/4671-gang-scheduling}); the
 *       coscheduling plugin's label {@code scheduling.x-k8s.io/pod-group}
 *       (kubernetes-sigs/scheduler-plugins {@code apis/scheduling/v1alpha1/types.go}, {@code
 *       PodGroupLabel}); Volcano's annotation {@code scheduling.k8s.io/group-name} or {@code
 *       scheduling.volcano.sh/group-name}, read as labels too (volcano-sh/apis {@code
 *       pkg/apis/scheduling/v1beta1/labels.go}), rank {@code volcano.sh/task-index}
 *       (volcano-sh/apis {@code pkg/apis/batch/v1alpha1/labels.go}); Kueue's pod groups, label
 *       {@code kueue.x-k8s.io/pod-group-name}, rank label {@code
 *       kueue.x-k8s.io/pod-group-pod-index} (kubernetes-sigs/kueue {@code
 *       pkg/controller/jobs/pod/constants/constants.go}). Declarations that name different gangs
 *       are a refusal ({@link InvalidGang}); equal names are one gang, read from the first.
 *   <li><b>Controllers' keys</b>, read only when nothing is declared, the most specific first: a
 *       LeaderWorkerSet's group, labels {@code leaderworkerset.sigs.k8s.io/name} and {@code
 *       /group-index}, rank {@code /worker-index} (kubernetes-sigs/lws {@code
 *       api/leaderworkerset/v1/leaderworkerset_types.go}); a JobSet, label {@code
 *       jobset.sigs.k8s.io/jobset-name}, rank {@code jobset.sigs.k8s.io/job-global-index}
 *       (kubernetes-sigs/jobset {@code api/jobset/v1alpha2/jobset_types.go}); a Kueue workload,
 *       annotation {@code kueue.x-k8s.io/workload} (kubernetes-sigs/kueue {@code
 *       pkg/controller/constants/constants.go}, {@code WorkloadAnnotation}). A Kueue-admitted
 *       JobSet carries both of the last two: one gang, the JobSet.
 * </ul>
 *
 * A gang without a rank of its own takes the first rank another key gives (a coscheduling PodGroup
 * over a JobSet: the JobSet's global job index).
 */
public final class GangKeys {

  public static final String SOURCE_TANDEM = "tandem";
  public static final String SOURCE_WORKLOAD_API = "workload-api";
  public static final String SOURCE_COSCHEDULING = "coscheduling";
  public static final String SOURCE_VOLCANO = "volcano";
  public static final String SOURCE_KUEUE_POD_GROUP = "kueue-pod-group";
  public static final String SOURCE_LEADER_WORKER_SET = "leaderworkerset";
  public static final String SOURCE_JOBSET = "jobset";
  public static final String SOURCE_KUEUE_WORKLOAD = "kueue-workload";

  /** Tandem's gang name (annotation). */
  public static final String GANG = "tandem.dev/gang";

  /** Tandem's rank of the pod in its gang (annotation), an integer from 0. */
  public static final String GANG_RANK = "tandem.dev/gang-rank";

  /** Whether the gang's rails filter ({@code required}) or score ({@code preferred}) nodes. */
  public static final String RAIL_ALIGNMENT = "tandem.dev/rail-alignment";

  static final String COSCHEDULING_POD_GROUP = "scheduling.x-k8s.io/pod-group";
  static final String VOLCANO_GROUP = "scheduling.k8s.io/group-name";
  static final String VOLCANO_GROUP_OWN = "scheduling.volcano.sh/group-name";
  static final String VOLCANO_TASK_INDEX = "volcano.sh/task-index";
  static final String KUEUE_POD_GROUP = "kueue.x-k8s.io/pod-group-name";
  static final String KUEUE_POD_INDEX = "kueue.x-k8s.io/pod-group-pod-index";
  static final String KUEUE_WORKLOAD = "kueue.x-k8s.io/workload";
  static final String LWS_NAME = "leaderworkerset.sigs.k8s.io/name";
  static final String LWS_GROUP_INDEX = "leaderworkerset.sigs.k8s.io/group-index";
  static final String LWS_WORKER_INDEX = "leaderworkerset.sigs.k8s.io/worker-index";
  static final String JOBSET_NAME = "jobset.sigs.k8s.io/jobset-name";
  static final String JOBSET_GLOBAL_INDEX = "jobset.sigs.k8s.io/job-global-index";
  static final String WORKLOAD_API_FIELD = "spec.schedulingGroup.podGroupName";

  /** One key found on the pod: where it came from, the gang it names, its rank key's value. */
  private record Found(String source, String where, String name, String rankKey, String rank) {}

  private GangKeys() {}

  /**
   * The pod's gang; empty for a pod in none (it is planned alone, as before gangs).
   *
   * @throws InvalidGang when the pod names two gangs, or a rank or rail alignment that is not valid
   */
  public static Optional<Gang> of(Pod pod) {
    ObjectMeta meta = pod.getMetadata() == null ? new ObjectMeta() : pod.getMetadata();
    return of(
        meta.getNamespace(),
        meta.getName(),
        meta.getLabels(),
        meta.getAnnotations(),
        schedulingGroup(pod));
  }

  /**
   * As {@link #of(Pod)}, from the parts of the pod it reads: for a caller that holds the pod as
   * JSON (the scheduler extender), without building a fabric8 pod.
   *
   * @param podLabels the pod's labels; null for none
   * @param annotations the pod's annotations; null for none
   * @param schedulingGroup {@code spec.schedulingGroup.podGroupName}; null when absent
   * @throws InvalidGang when the pod names two gangs, or a rank or rail alignment that is not valid
   */
  public static Optional<Gang> of(
      String namespace,
      String name,
      Map<String, String> podLabels,
      Map<String, String> annotations,
      String schedulingGroup) {
    Map<String, String> labels = podLabels == null ? Map.of() : podLabels;
    Map<String, String> notes = annotations == null ? Map.of() : annotations;
    String who = "pod " + namespace + "/" + name;
    List<Found> declared = declared(schedulingGroup, labels, notes);
    List<Found> controllers = controllers(labels, notes);
    if (declared.stream().map(Found::name).distinct().count() > 1) {
      throw new InvalidGang(
          who
              + " is in more than one gang: "
              + declared.stream()
                  .map(f -> f.where() + "=" + f.name())
                  .collect(Collectors.joining(", "))
              + "; keep one of them (or give them one name)");
    }
    Optional<Found> chosen =
        declared.stream().findFirst().or(() -> controllers.stream().findFirst());
    if (chosen.isEmpty()) {
      return Optional.empty();
    }
    List<Found> all = new ArrayList<>(declared);
    all.addAll(controllers);
    Found gang = chosen.get();
    Found ranked =
        gang.rank() != null
            ? gang
            : all.stream().filter(f -> f.rank() != null).findFirst().orElse(gang);
    return Optional.of(
        new Gang(
            namespace,
            gang.source(),
            gang.name(),
            rank(who, ranked),
            railAlignment(who, notes.get(RAIL_ALIGNMENT))));
  }

  private static List<Found> declared(
      String schedulingGroup, Map<String, String> labels, Map<String, String> notes) {
    List<Found> out = new ArrayList<>();
    add(out, SOURCE_TANDEM, "annotation " + GANG, notes.get(GANG), GANG_RANK, notes.get(GANG_RANK));
    add(out, SOURCE_WORKLOAD_API, WORKLOAD_API_FIELD, schedulingGroup, null, null);
    add(
        out,
        SOURCE_COSCHEDULING,
        "label " + COSCHEDULING_POD_GROUP,
        labels.get(COSCHEDULING_POD_GROUP),
        null,
        null);
    String taskIndex = either(notes, labels, VOLCANO_TASK_INDEX);
    for (String key : List.of(VOLCANO_GROUP, VOLCANO_GROUP_OWN)) {
      add(out, SOURCE_VOLCANO, "annotation " + key, notes.get(key), VOLCANO_TASK_INDEX, taskIndex);
      add(out, SOURCE_VOLCANO, "label " + key, labels.get(key), VOLCANO_TASK_INDEX, taskIndex);
    }
    add(
        out,
        SOURCE_KUEUE_POD_GROUP,
        "label " + KUEUE_POD_GROUP,
        labels.get(KUEUE_POD_GROUP),
        KUEUE_POD_INDEX,
        labels.get(KUEUE_POD_INDEX));
    return out;
  }

  private static List<Found> controllers(Map<String, String> labels, Map<String, String> notes) {
    List<Found> out = new ArrayList<>();
    String lws = labels.get(LWS_NAME);
    String group = labels.get(LWS_GROUP_INDEX);
    add(
        out,
        SOURCE_LEADER_WORKER_SET,
        "labels " + LWS_NAME + ", " + LWS_GROUP_INDEX,
        lws != null && group != null ? lws + "/" + group : null,
        LWS_WORKER_INDEX,
        labels.get(LWS_WORKER_INDEX));
    add(
        out,
        SOURCE_JOBSET,
        "label " + JOBSET_NAME,
        either(labels, notes, JOBSET_NAME),
        JOBSET_GLOBAL_INDEX,
        either(labels, notes, JOBSET_GLOBAL_INDEX));
    add(
        out,
        SOURCE_KUEUE_WORKLOAD,
        "annotation " + KUEUE_WORKLOAD,
        notes.get(KUEUE_WORKLOAD),
        null,
        null);
    return out;
  }

  private static void add(
      List<Found> out, String source, String where, String name, String rankKey, String rank) {
    if (name != null && !name.isBlank()) {
      out.add(new Found(source, where, name.trim(), rankKey, rank));
    }
  }

  private static String either(Map<String, String> first, Map<String, String> second, String key) {
    String v = first.get(key);
    return v != null ? v : second.get(key);
  }

  private static String schedulingGroup(Pod pod) {
    PodSchedulingGroup group = pod.getSpec() == null ? null : pod.getSpec().getSchedulingGroup();
    return group == null ? null : group.getPodGroupName();
  }

  private static Integer rank(String who, Found ranked) {
    if (ranked.rank() == null) {
      return null;
    }
    try {
      int rank = Integer.parseInt(ranked.rank().trim());
      if (rank >= 0) {
        return rank;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new InvalidGang(
        who
            + ": "
            + ranked.rankKey()
            + "='"
            + ranked.rank()
            + "' is not a rank (an integer from 0)");
  }

  private static AlignmentMode railAlignment(String who, String text) {
    if (text == null) {
      return null;
    }
    try {
      return AlignmentMode.parse(text.trim());
    } catch (InvalidPolicyException e) {
      throw new InvalidGang(
          who + ": " + RAIL_ALIGNMENT + "='" + text + "' is not one of required, preferred");
    }
  }
}
