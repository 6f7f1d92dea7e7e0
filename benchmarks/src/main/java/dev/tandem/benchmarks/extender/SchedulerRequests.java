package dev.tandem.benchmarks.extender;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Request bodies as kube-scheduler sends them to an extender with {@code nodeCacheCapable: true}:
 * {@code {"Pod":{v1.Pod},"Nodes":null,"NodeNames":[…]}} (PROTOCOLS.md §1.2).
 *
 * <p>The pod is what the scheduler's informer holds for a pending training pod: a Job-owned pod
 * with labels, the Tandem alignment annotations, managed fields, two containers (one asking for 2
 * GPUs and 2 HCAs, a sidecar asking for none), tolerations, volumes and a Pending status.
 */
final class SchedulerRequests {

  /** What the pod asks for: GPUs and HCAs of its main container, and its alignment annotations. */
  record Shape(int gpus, int hcas, String alignment, String mode) {

    /** The pod of a typical 2-GPU worker of a multi-node training job. */
    static final Shape TYPICAL = new Shape(2, 2, "switch", "required");

    /** 512 distinct requests: 1..8 GPUs x 1..8 HCAs x 4 alignments x 2 modes. */
    static List<Shape> all() {
      List<Shape> out = new ArrayList<>(512);
      for (String mode : List.of("required", "preferred")) {
        for (String alignment : List.of("switch", "root-complex", "numa", "none")) {
          for (int g = 1; g <= 8; g++) {
            for (int h = 1; h <= 8; h++) {
              out.add(new Shape(g, h, alignment, mode));
            }
          }
        }
      }
      return out;
    }
  }

  private final byte[] nodeNamesTail;

  /** Requests naming these nodes, in this order. */
  SchedulerRequests(List<String> nodeNames) {
    Buffer tail =
        Buffer.buffer(",\"Nodes\":null,\"NodeNames\":")
            .appendBuffer(new JsonArray(List.copyOf(nodeNames)).toBuffer())
            .appendString("}");
    this.nodeNamesTail = tail.getBytes();
  }

  /** The ExtenderArgs head of a pod: {@code {"Pod":{…}}; complete it with {@link #body}. */
  static byte[] head(Shape shape) {
    return Buffer.buffer("{\"Pod\":").appendBuffer(pod(shape).toBuffer()).getBytes();
  }

  /**
   * The ExtenderArgs body for filter and prioritize: {@code
   * {"Pod":…,"Nodes":null,"NodeNames":[…]}}.
   */
  Buffer body(byte[] head) {
    return Buffer.buffer(head.length + nodeNamesTail.length)
        .appendBytes(head)
        .appendBytes(nodeNamesTail);
  }

  static JsonObject pod(Shape shape) {
    return new JsonObject()
        .put("metadata", metadata(shape))
        .put("spec", spec(shape))
        .put(
            "status",
            new JsonObject()
                .put("phase", "Pending")
                .put("qosClass", "Burstable")
                .put(
                    "conditions",
                    new JsonArray()
                        .add(
                            new JsonObject()
                                .put("type", "PodScheduled")
                                .put("status", "False")
                                .putNull("lastProbeTime")
                                .put("lastTransitionTime", "2026-11-22T02:41:07Z")
                                .put("reason", "Unschedulable")
                                .put(
                                    "message",
                                    "0/5000 nodes are available: waiting for extender tandem."))));
  }

  private static JsonObject metadata(Shape shape) {
    return new JsonObject()
        .put("name", "llama-70b-finetune-worker-3-x7k2q")
        .put("generateName", "llama-70b-finetune-worker-3-")
        .put("namespace", "ml-training")
        .put("uid", "6f1c2a4e-93b7-4d0a-b6e2-1c5f0e7d9a31")
        .put("resourceVersion", "48213377")
        .put("creationTimestamp", "2026-11-22T02:41:07Z")
        .put(
            "labels",
            new JsonObject()
                .put("batch.kubernetes.io/controller-uid", "0b9e4c1d-5f7a-4e22-8d3c-2a6b9f1e7c45")
                .put("batch.kubernetes.io/job-completion-index", "3")
                .put("batch.kubernetes.io/job-name", "llama-70b-finetune-worker")
                .put("controller-uid", "0b9e4c1d-5f7a-4e22-8d3c-2a6b9f1e7c45")
                .put("job-name", "llama-70b-finetune-worker")
                .put("app.kubernetes.io/part-of", "llama-70b-finetune"))
        .put(
            "annotations",
            new JsonObject()
                .put("batch.kubernetes.io/job-completion-index", "3")
                .put("tandem.dev/alignment", shape.alignment())
                .put("tandem.dev/alignment-mode", shape.mode()))
        .put(
            "ownerReferences",
            new JsonArray()
                .add(
                    new JsonObject()
                        .put("apiVersion", "batch/v1")
                        .put("kind", "Job")
                        .put("name", "llama-70b-finetune-worker")
                        .put("uid", "0b9e4c1d-5f7a-4e22-8d3c-2a6b9f1e7c45")
                        .put("controller", true)
                        .put("blockOwnerDeletion", true)))
        .put(
            "managedFields",
            new JsonArray()
                .add(
                    new JsonObject()
                        .put("manager", "kube-controller-manager")
                        .put("operation", "Update")
                        .put("apiVersion", "v1")
                        .put("time", "2026-11-22T02:41:07Z")
                        .put("fieldsType", "FieldsV1")
                        .put(
                            "fieldsV1",
                            new JsonObject()
                                .put(
                                    "f:metadata",
                                    new JsonObject()
                                        .put(
                                            "f:annotations",
                                            new JsonObject()
                                                .put(".", new JsonObject())
                                                .put("f:tandem.dev/alignment", new JsonObject()))
                                        .put("f:generateName", new JsonObject())
                                        .put(
                                            "f:ownerReferences",
                                            new JsonObject().put(".", new JsonObject()))))));
  }

  private static JsonObject spec(Shape shape) {
    return new JsonObject()
        .put(
            "volumes",
            new JsonArray()
                .add(
                    new JsonObject()
                        .put("name", "dshm")
                        .put(
                            "emptyDir",
                            new JsonObject().put("medium", "Memory").put("sizeLimit", "64Gi")))
                .add(
                    new JsonObject()
                        .put("name", "kube-api-access-9xk2d")
                        .put(
                            "projected",
                            new JsonObject()
                                .put("defaultMode", 420)
                                .put(
                                    "sources",
                                    new JsonArray()
                                        .add(
                                            new JsonObject()
                                                .put(
                                                    "serviceAccountToken",
                                                    new JsonObject()
                                                        .put("expirationSeconds", 3607)
                                                        .put("path", "token")))
                                        .add(
                                            new JsonObject()
                                                .put(
                                                    "configMap",
                                                    new JsonObject()
                                                        .put("name", "kube-root-ca.crt")
                                                        .put(
                                                            "items",
                                                            new JsonArray()
                                                                .add(
                                                                    new JsonObject()
                                                                        .put("key", "ca.crt")
                                                                        .put(
                                                                            "path",
                                                                            "ca.crt")))))))))
        .put("containers", new JsonArray().add(trainer(shape)).add(sidecar()))
        .put("restartPolicy", "Never")
        .put("terminationGracePeriodSeconds", 30)
        .put("dnsPolicy", "ClusterFirst")
        .put("nodeSelector", new JsonObject().put("nvidia.com/gpu.present", "true"))
        .put("serviceAccountName", "trainer")
        .put("serviceAccount", "trainer")
        .put("subdomain", "llama-70b-finetune")
        .put("securityContext", new JsonObject())
        .put("schedulerName", "default-scheduler")
        .put(
            "tolerations",
            new JsonArray()
                .add(
                    new JsonObject()
                        .put("key", "nvidia.com/gpu")
                        .put("operator", "Exists")
                        .put("effect", "NoSchedule"))
                .add(
                    new JsonObject()
                        .put("key", "node.kubernetes.io/not-ready")
                        .put("operator", "Exists")
                        .put("effect", "NoExecute")
                        .put("tolerationSeconds", 300))
                .add(
                    new JsonObject()
                        .put("key", "node.kubernetes.io/unreachable")
                        .put("operator", "Exists")
                        .put("effect", "NoExecute")
                        .put("tolerationSeconds", 300)))
        .put("priority", 0)
        .put("enableServiceLinks", true)
        .put("preemptionPolicy", "PreemptLowerPriority");
  }

  private static JsonObject trainer(Shape shape) {
    JsonObject extended =
        new JsonObject()
            .put("cpu", "32")
            .put("memory", "256Gi")
            .put("nvidia.com/gpu", Integer.toString(shape.gpus()))
            .put("rdma/hca", Integer.toString(shape.hcas()));
    return new JsonObject()
        .put("name", "trainer")
        .put("image", "registry.example.internal/ml/llama-finetune:2026.11.3")
        .put("command", new JsonArray().add("torchrun"))
        .put(
            "args",
            new JsonArray()
                .add("--nnodes=8")
                .add("--nproc-per-node=" + shape.gpus())
                .add("train.py")
                .add("--config=/etc/train/llama-70b.yaml"))
        .put(
            "env",
            new JsonArray()
                .add(new JsonObject().put("name", "NCCL_DEBUG").put("value", "INFO"))
                .add(new JsonObject().put("name", "NCCL_IB_GID_INDEX").put("value", "3"))
                .add(
                    new JsonObject()
                        .put("name", "JOB_COMPLETION_INDEX")
                        .put(
                            "valueFrom",
                            new JsonObject()
                                .put(
                                    "fieldRef",
                                    new JsonObject()
                                        .put("apiVersion", "v1")
                                        .put(
                                            "fieldPath",
                                            "metadata.annotations['batch.kubernetes.io/job-completion-index']")))))
        .put(
            "resources",
            new JsonObject()
                .put("limits", extended.copy().put("memory", "300Gi"))
                .put("requests", extended))
        .put(
            "volumeMounts",
            new JsonArray()
                .add(new JsonObject().put("name", "dshm").put("mountPath", "/dev/shm"))
                .add(
                    new JsonObject()
                        .put("name", "kube-api-access-9xk2d")
                        .put("readOnly", true)
                        .put("mountPath", "/var/run/secrets/kubernetes.io/serviceaccount")))
        .put("terminationMessagePath", "/dev/termination-log")
        .put("terminationMessagePolicy", "File")
        .put("imagePullPolicy", "IfNotPresent")
        .put(
            "securityContext",
            new JsonObject()
                .put("capabilities", new JsonObject().put("add", new JsonArray().add("IPC_LOCK"))));
  }

  private static JsonObject sidecar() {
    return new JsonObject()
        .put("name", "metrics-exporter")
        .put("image", "registry.example.internal/ml/dcgm-exporter-lite:3.3")
        .put(
            "resources",
            new JsonObject()
                .put("requests", new JsonObject().put("cpu", "100m").put("memory", "128Mi"))
                .put("limits", new JsonObject().put("memory", "256Mi")))
        .put("terminationMessagePath", "/dev/termination-log")
        .put("terminationMessagePolicy", "File")
        .put("imagePullPolicy", "IfNotPresent");
  }
}
