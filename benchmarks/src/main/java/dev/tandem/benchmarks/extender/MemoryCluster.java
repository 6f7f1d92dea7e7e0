package dev.tandem.benchmarks.extender;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.DeviceEntry;
import dev.tandem.api.crd.HcaEntry;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologySpec;
import dev.tandem.api.crd.NodeTopologyStatus;
import dev.tandem.api.crd.UnitEntry;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * The objects a cluster of {@code n} GPU nodes holds in its API server, as the extender's informers
 * list them: per node a Node (labels, capacity, conditions and images as a GPU node's kubelet and
 * feature discovery publish them), its NodeTopology (one of the extender's bundled real servers in
 * turn, with GPU UUIDs and HCA GUIDs of its own, and a seeded share of its devices reported
 * allocated) and the pods assigned to it (a DaemonSet pod, and a training pod on nodes with
 * allocations).
 */
final class MemoryCluster {

  private static final String BUNDLED = "demo/";
  private static final double[] TAKEN = {0.0, 0.25, 0.5, 0.75, 1.0};

  private final List<NodeTopology> models;
  private final KubernetesSerialization serialization = new KubernetesSerialization();

  MemoryCluster() {
    this.models = bundled();
  }

  int models() {
    return models.size();
  }

  String nodeName(int i) {
    return String.format(Locale.ROOT, "gpu-%05d.rack-%03d.cluster.local", i, i / 32);
  }

  /** The node's topology: model {@code i % models}, with ids of its own and a share allocated. */
  NodeTopology topology(int i, Random random) {
    NodeTopology model = models.get(i % models.size());
    NodeTopologySpec spec = model.getSpec();
    List<DeviceEntry> devices = new ArrayList<>();
    Map<String, String> renamed = new LinkedHashMap<>();
    for (DeviceEntry d : spec.devices()) {
      DeviceEntry own = ownIds(d, random);
      renamed.put(d.id(), own.id());
      devices.add(own);
    }
    NodeTopology nt = new NodeTopology();
    ObjectMeta meta = new ObjectMeta();
    meta.setName(nodeName(i));
    meta.setOwnerReferences(List.of(owner(i)));
    nt.setMetadata(meta);
    nt.setSpec(
        new NodeTopologySpec(
            spec.source(), spec.summary(), spec.numaNodes(), spec.pcie(), devices));
    nt.setStatus(
        new NodeTopologyStatus(
            "2026-11-24T10:00:00Z",
            allocations(i, devices, random),
            List.of(),
            List.of(),
            units(devices)));
    return nt;
  }

  private static DeviceEntry ownIds(DeviceEntry d, Random random) {
    if (d.hca() == null) {
      String uuid = "GPU-" + new UUID(random.nextLong(), random.nextLong());
      return new DeviceEntry(
          uuid,
          d.kind(),
          d.name(),
          d.resourceName(),
          d.address(),
          d.numaNode(),
          d.parent(),
          d.switchId(),
          d.vendor(),
          d.device(),
          d.model(),
          d.healthy(),
          null);
    }
    HcaEntry h = d.hca();
    long guid = random.nextLong();
    String nodeGuid =
        String.format(
            Locale.ROOT,
            "%04x:%04x:%04x:%04x",
            (guid >>> 48) & 0xffff,
            (guid >>> 32) & 0xffff,
            (guid >>> 16) & 0xffff,
            guid & 0xffff);
    HcaEntry own =
        new HcaEntry(
            h.ibDevice(),
            h.linkLayer(),
            h.portState(),
            h.rate(),
            nodeGuid,
            h.netdevs(),
            h.uverbs(),
            h.virtualFunction(),
            h.physicalFunction(),
            h.dataDirect(),
            h.rail());
    return new DeviceEntry(
        d.id(),
        d.kind(),
        d.name(),
        d.resourceName(),
        d.address(),
        d.numaNode(),
        d.parent(),
        d.switchId(),
        d.vendor(),
        d.device(),
        d.model(),
        d.healthy(),
        own);
  }

  /** One kubelet device per device, as the agent counts it when the kubelet answers. */
  private static List<UnitEntry> units(List<DeviceEntry> devices) {
    return devices.stream().map(d -> new UnitEntry(d.resourceName(), d.id(), 1)).toList();
  }

  private List<AllocationEntry> allocations(int i, List<DeviceEntry> devices, Random random) {
    double share = TAKEN[random.nextInt(TAKEN.length)];
    List<String> gpus = new ArrayList<>();
    List<String> hcas = new ArrayList<>();
    for (DeviceEntry d : devices) {
      if (random.nextDouble() < share) {
        (d.hca() == null ? gpus : hcas).add(d.id());
      }
    }
    List<AllocationEntry> out = new ArrayList<>(2);
    String uid = trainingUid(i);
    if (!gpus.isEmpty()) {
      out.add(new AllocationEntry(uid, "ml", trainer(i), "main", ResourceNames.GPU, gpus, true));
    }
    if (!hcas.isEmpty()) {
      out.add(new AllocationEntry(uid, "ml", trainer(i), "main", ResourceNames.HCA, hcas, true));
    }
    return out;
  }

  private static String trainer(int i) {
    return "trainer-" + i;
  }

  private static String trainingUid(int i) {
    return String.format(Locale.ROOT, "00000000-0000-4000-8000-%012d", i);
  }

  private static OwnerReference owner(int i) {
    OwnerReference ref = new OwnerReference();
    ref.setApiVersion("v1");
    ref.setKind("Node");
    ref.setName(String.format(Locale.ROOT, "gpu-%05d", i));
    ref.setUid(String.format(Locale.ROOT, "10000000-0000-4000-8000-%012d", i));
    return ref;
  }

  /** A GPU node's Node object as its kubelet and GPU feature discovery publish it. */
  Node node(int i, NodeTopology nt) {
    int gpus = nt.getSpec().summary().gpus();
    int hcas = nt.getSpec().summary().hcas();
    Map<String, Quantity> capacity = new LinkedHashMap<>();
    capacity.put("cpu", new Quantity("192"));
    capacity.put("memory", new Quantity("2113523980Ki"));
    capacity.put("pods", new Quantity("110"));
    capacity.put("ephemeral-storage", new Quantity("3748519728Ki"));
    capacity.put("hugepages-1Gi", new Quantity("0"));
    capacity.put("hugepages-2Mi", new Quantity("0"));
    capacity.put(ResourceNames.GPU, new Quantity(String.valueOf(gpus)));
    capacity.put(ResourceNames.HCA, new Quantity(String.valueOf(hcas)));
    NodeBuilder b =
        new NodeBuilder()
            .withNewMetadata()
            .withName(nodeName(i))
            .withUid(owner(i).getUid())
            .withLabels(labels(i, nt))
            .withAnnotations(
                Map.of(
                    "node.alpha.kubernetes.io/ttl", "0",
                    "volumes.kubernetes.io/controller-managed-attach-detach", "true",
                    "nfd.node.kubernetes.io/feature-labels",
                        "cpu-cpuid.AVX512F,cpu-cpuid.AMXTILE,pci-10de.present,pci-15b3.present",
                    "csi.volume.kubernetes.io/nodeid", "{\"ebs.csi.aws.com\":\"i-0" + i + "\"}"))
            .endMetadata()
            .withNewSpec()
            .withProviderID("aws:///us-east-1a/i-0" + Integer.toHexString(i * 7919))
            .withPodCIDR("10." + (i >> 8 & 0xff) + "." + (i & 0xff) + ".0/24")
            .endSpec()
            .withNewStatus()
            .withCapacity(capacity)
            .withAllocatable(capacity)
            .addNewAddress()
            .withType("InternalIP")
            .withAddress("10.0." + (i >> 8 & 0xff) + "." + (i & 0xff))
            .endAddress()
            .addNewAddress()
            .withType("Hostname")
            .withAddress(nodeName(i))
            .endAddress()
            .withNewNodeInfo()
            .withArchitecture("amd64")
            .withBootID(new UUID(i, 42).toString())
            .withContainerRuntimeVersion("containerd://1.7.27")
            .withKernelVersion("6.8.0-1021-aws")
            .withKubeProxyVersion("v1.37.2")
            .withKubeletVersion("v1.37.2")
            .withMachineID(Long.toHexString(i * 1_000_003L) + "ec2")
            .withOperatingSystem("linux")
            .withOsImage("Ubuntu 24.04.2 LTS")
            .withSystemUUID(new UUID(42, i).toString())
            .endNodeInfo()
            .endStatus();
    for (String type : List.of("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")) {
      b.editStatus()
          .addNewCondition()
          .withType(type)
          .withStatus(type.equals("Ready") ? "True" : "False")
          .withLastHeartbeatTime("2026-11-24T10:00:0" + (i % 10) + "Z")
          .withLastTransitionTime("2026-11-20T08:00:00Z")
          .withReason(type.equals("Ready") ? "KubeletReady" : "KubeletHasSufficient" + type)
          .withMessage(type.equals("Ready") ? "kubelet is posting ready status" : "no " + type)
          .endCondition()
          .endStatus();
    }
    for (int k = 0; k < 24; k++) {
      b.editStatus()
          .addNewImage()
          .withNames(
              "nvcr.io/nvidia/pytorch@sha256:" + Long.toHexString(k * 31L + 0x5eed) + "aa" + k,
              "nvcr.io/nvidia/pytorch:25." + (k % 12 + 1) + "-py3")
          .withSizeBytes(9_000_000_000L + k)
          .endImage()
          .endStatus();
    }
    return b.build();
  }

  private static Map<String, String> labels(int i, NodeTopology nt) {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("kubernetes.io/hostname", String.format(Locale.ROOT, "gpu-%05d", i));
    out.put("kubernetes.io/os", "linux");
    out.put("kubernetes.io/arch", "amd64");
    out.put("node.kubernetes.io/instance-type", nt.getMetadata().getName());
    out.put("topology.kubernetes.io/region", "us-east-1");
    out.put("topology.kubernetes.io/zone", "us-east-1" + (char) ('a' + i % 3));
    out.put("nvidia.com/gpu.present", "true");
    out.put("nvidia.com/gpu.count", String.valueOf(nt.getSpec().summary().gpus()));
    out.put("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3");
    out.put("nvidia.com/gpu.memory", "81559");
    out.put("nvidia.com/cuda.driver.major", "570");
    out.put("nvidia.com/cuda.driver.minor", "124");
    out.put("nvidia.com/cuda.runtime.major", "12");
    out.put("nvidia.com/mig.capable", "true");
    out.put("nvidia.com/gfd.timestamp", String.valueOf(1_763_900_000L + i));
    out.put("feature.node.kubernetes.io/rdma.available", "true");
    out.put("feature.node.kubernetes.io/pci-15b3.present", "true");
    out.put("feature.node.kubernetes.io/kernel-version.full", "6.8.0-1021-aws");
    out.put("tandem.dev/rdma", "true");
    out.put("rack", String.format(Locale.ROOT, "rack-%03d", i / 32));
    return out;
  }

  /** The pods assigned to the node: the agent's DaemonSet pod, and a training pod when busy. */
  List<Pod> pods(int i, NodeTopology nt) {
    List<Pod> out = new ArrayList<>(2);
    out.add(
        pod("tandem-system", "tandem-node-topology-agent-" + Integer.toString(i, 36), i, "agent")
            .build());
    if (!nt.getStatus().allocations().isEmpty()) {
      out.add(
          pod("ml", trainer(i), i, "main")
              .editMetadata()
              .withUid(trainingUid(i))
              .endMetadata()
              .build());
    }
    return out;
  }

  private PodBuilder pod(String namespace, String name, int i, String container) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .withUid(new UUID(i, name.hashCode()).toString())
        .withLabels(Map.of("app.kubernetes.io/name", container, "controller-revision-hash", "7f9c"))
        .endMetadata()
        .withNewSpec()
        .withNodeName(nodeName(i))
        .withPriority(0)
        .addNewContainer()
        .withName(container)
        .withImage("registry.example.com/" + container + ":0.1.0")
        .withArgs("--port=8081", "--node-name=$(NODE_NAME)")
        .addNewEnv()
        .withName("NODE_NAME")
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath("spec.nodeName")
        .endFieldRef()
        .endValueFrom()
        .endEnv()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Running")
        .withHostIP("10.0." + (i >> 8 & 0xff) + "." + (i & 0xff))
        .withPodIP("10.1." + (i >> 8 & 0xff) + "." + (i & 0xff))
        .endStatus();
  }

  private List<NodeTopology> bundled() {
    List<NodeTopology> out = new ArrayList<>();
    for (String name : read("index.txt").lines().map(String::strip).toList()) {
      if (!name.isEmpty()) {
        NodeTopology nt = serialization.unmarshal(read(name + ".json"), NodeTopology.class);
        nt.getMetadata().setName(name);
        out.add(nt);
      }
    }
    return out;
  }

  private static String read(String name) {
    try (InputStream in =
        MemoryCluster.class.getClassLoader().getResourceAsStream(BUNDLED + name)) {
      if (in == null) {
        throw new IllegalStateException(BUNDLED + name + " is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
