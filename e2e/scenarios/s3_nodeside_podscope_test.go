//go:build e2e

package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	nadutils "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/utils"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
	"tandem.dev/e2e/internal/nodeside"
)

// TestNodeSidePodScope: pods of several containers, bound by the real kube-scheduler and extender
// (whose plan splits the pod's devices per container) and admitted by the kubelet's own device
// manager against Tandem's plugin. In shared mode two containers get slots of the same HCA, under the
// GPU's switch, with the same NCCL_IB_HCA; in hca mode each container gets HCAs of the pod's plan only;
// an init container holding HCAs, part of them reused by the app container, leaves nothing behind in
// the kubelet, the extender or the device-info files once the pod ends. Tandem's plugin steers rdma/hca;
// the GPUs come from the kubelet's own stub plugin offering the plan's GPUs (NVIDIA's plugin, or
// Tandem's joint mode, decides them in a real cluster).
func TestNodeSidePodScope(t *testing.T) {
	if os.Getenv("E2E_NODESIDE") != "1" {
		t.Fatal("the node side needs a private mount namespace with a tmpfs on /var/lib/kubelet; run it with e2e/run")
	}
	const ns = "podscope"
	cl.use(t, ns)
	shared := cl.unitNode(t, ns, "shared", xe8640, 4)
	hcaNode := cl.unitNode(t, ns, "hca", xe8640, 1)
	prSock := filepath.Join(cl.env.Dir, "pod-resources", "kubelet.sock")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	t.Run("SharedModeTwoContainers", func(t *testing.T) {
		kubelet := startKubelet(t, prSock) // a device side of its own: no pod of another subtest
		topo, gpus, hcas := cl.devicesOf(t, shared)
		cfg := filepath.Join(cl.env.Dir, "podscope-shared.json")
		if err := os.WriteFile(cfg, []byte(`{"mode":"shared","slotsPerHca":4}`), 0o644); err != nil {
			t.Fatal(err)
		}
		plugin := cl.startPlugin(t, shared, xe8640, hcas, gpus, "device-plugin-podscope-shared", "--config", cfg)
		defer plugin.Stop(10 * time.Second)
		if err := kubelet.WaitHealthy("rdma/hca", 4*len(hcas), 60*time.Second); err != nil {
			t.Fatalf("shared mode: %v; see %s", err, plugin.Log)
		}
		pod, pl := cl.bindPod(t, ns, "shared-two", shared, "", nil,
			[]corev1.Container{container("train", 1, 1), container("loader", 0, 1)})
		got := admitWithGpus(t, ctx, kubelet, pod, pl.GPUs, gpus)
		train, loader := got["train"]["rdma/hca"], got["loader"]["rdma/hca"]
		if len(train) != 1 || len(loader) != 1 {
			t.Fatalf("admitted with slots %v and %v, one each asked for", train, loader)
		}
		if slotHca(train[0]) != slotHca(loader[0]) {
			t.Errorf("train got a slot of %s, loader of %s: not the pod's one HCA (plan %v, shares %+v); see %s",
				slotHca(train[0]), slotHca(loader[0]), pl.HCAs, pl.Containers, plugin.Log)
		}
		ok, worst, err := topo.Aligned(got["train"]["nvidia.com/gpu"], []string{slotHca(train[0]), slotHca(loader[0])}, harness.PXB)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("the pod's HCA slots %v %v are not under its GPU %v's switch (worst %s)",
				train, loader, got["train"]["nvidia.com/gpu"], harness.LocalityName(worst))
		}
		a, b := envOf(t, kubelet, pod, "train"), envOf(t, kubelet, pod, "loader")
		for _, v := range []string{"NCCL_IB_HCA", "UCX_NET_DEVICES"} {
			if a[v] == "" || a[v] != b[v] {
				t.Errorf("%s is %q in train and %q in loader: the same HCAs must be named in both", v, a[v], b[v])
			}
		}
		t.Logf("shared mode: train %v + GPU %v, loader %v; NCCL_IB_HCA=%s in both", train, got["train"]["nvidia.com/gpu"], loader, a["NCCL_IB_HCA"])
	})

	t.Run("HcaModeTwoContainers", func(t *testing.T) {
		kubelet := startKubelet(t, prSock) // a device side of its own: no pod of another subtest
		_, gpus, hcas := cl.devicesOf(t, hcaNode)
		plugin := cl.startPlugin(t, hcaNode, xe8640, hcas, gpus, "device-plugin-podscope-hca",
			"--device-info-reconcile-seconds", "1")
		defer plugin.Stop(10 * time.Second)
		if err := kubelet.WaitHealthy("rdma/hca", len(hcas), 60*time.Second); err != nil {
			t.Fatalf("hca mode: %v; see %s", err, plugin.Log)
		}
		pod, pl := cl.bindPod(t, ns, "hca-two", hcaNode, "", nil,
			[]corev1.Container{container("a", 1, 1), container("b", 1, 1)})
		// The GPUs as the plan shares them, container by container, as a GPU plugin following the plan
		// does: the kubelet's own choice among the plan's GPUs is random, and a container's HCA follows
		// the GPU it holds (PreferredFixturesIT), which may be the other container's planned one.
		var shares [][]string
		for _, c := range pl.Containers {
			shares = append(shares, c.GPUs)
		}
		got := admitWithPlannedGpus(t, ctx, kubelet, pod, pl.GPUs, gpus, shares)
		ha, hb := got["a"]["rdma/hca"], got["b"]["rdma/hca"]
		if len(ha) != 1 || len(hb) != 1 || !sameSet(append(append([]string{}, ha...), hb...), pl.HCAs) {
			t.Errorf("containers got HCAs %v and %v, want the plan's %v split between them (shares %+v); see %s",
				ha, hb, pl.HCAs, pl.Containers, plugin.Log)
		}
		t.Logf("hca mode: a %v + GPU %v, b %v + GPU %v; plan %v, shares %+v",
			ha, got["a"]["nvidia.com/gpu"], hb, got["b"]["nvidia.com/gpu"], pl.HCAs, pl.Containers)
	})

	t.Run("InitContainerNothingLeaked", func(t *testing.T) {
		kubelet := startKubelet(t, prSock) // a device side of its own: no pod of another subtest
		_, gpus, hcas := cl.devicesOf(t, hcaNode)
		plugin := cl.startPlugin(t, hcaNode, xe8640, hcas, gpus, "device-plugin-podscope-init",
			"--device-info-reconcile-seconds", "1")
		defer plugin.Stop(10 * time.Second)
		if err := kubelet.WaitHealthy("rdma/hca", len(hcas), 60*time.Second); err != nil {
			t.Fatalf("hca mode: %v; see %s", err, plugin.Log)
		}
		// The init container holds two HCAs, the app container one: the pod's effective request is
		// two HCAs, the app container reuses one of the init container's, the other stays with the
		// pod (the kubelet frees a pod's devices when it ends) without PodResources listing it.
		pod, pl := cl.bindPod(t, ns, "init-reuse", hcaNode, "preferred",
			[]corev1.Container{container("setup", 0, 2)}, []corev1.Container{container("train", 1, 1)})
		if len(pl.HCAs) != 2 || pl.Share("setup") == nil || !pl.Share("setup").Init {
			t.Fatalf("plan %+v: want two HCAs and an init share for setup", pl)
		}
		got := admitWithGpus(t, ctx, kubelet, pod, pl.GPUs, gpus)
		setup, train := got["setup"]["rdma/hca"], got["train"]["rdma/hca"]
		if !sameSet(setup, pl.HCAs) || len(train) != 1 || !contains(setup, train[0]) {
			t.Errorf("setup got %v (plan %v), train %v (want one of setup's); see %s", setup, pl.HCAs, train, plugin.Log)
		}
		held := kubelet.InUse("rdma/hca")
		free, total := cl.extenderHcas(t, hcaNode)
		if !sameSet(held, pl.HCAs) || total-free != len(held) {
			t.Errorf("while the pod runs: the kubelet holds %v, the extender counts %d of %d HCAs taken; the plan is %v",
				held, total-free, total, pl.HCAs)
		}
		for _, id := range train {
			assertHcaInfo(t, id, plugin.Log)
		}
		cl.deleteNow(t, ns, pod.Name)
		kubelet.Forget(pod.UID)
		if left := kubelet.InUse("rdma/hca"); len(left) != 0 {
			t.Errorf("the kubelet still holds %v after the pod ended", left)
		}
		waitExtenderFree(t, hcaNode, total, 30*time.Second)
		waitNoDeviceInfo(t, pl.HCAs, 30*time.Second, plugin.Log)
	})
}

// unitNode creates a fake node of the group advertising unitsPerHca rdma/hca units per HCA of the
// fixture (the extender derives shared-mode slots from it), and runs its agent.
func (k *cluster) unitNode(t *testing.T, group, suffix string, f fixture, unitsPerHca int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := k.c.EnsureNamespace(ctx, group); err != nil {
		t.Fatal(err)
	}
	name := group + "-" + suffix
	if err := k.c.CreateNode(ctx, harness.NodeSpec{Name: name, GPUs: f.GPUs, HCAs: f.HCAs * unitsPerHca,
		Labels: map[string]string{groupLabel: group}}); err != nil {
		t.Fatal(err)
	}
	if err := k.startAgent(name, f); err != nil {
		t.Fatal(err)
	}
	if err := k.waitTopology(ctx, name, f); err != nil {
		t.Fatal(err)
	}
	return name
}

// devicesOf reads the node's NodeTopology: its tree and its GPUs and HCAs as the node side lists them.
func (k *cluster) devicesOf(t *testing.T, node string) (*harness.Topology, []nodeside.Device, []nodeside.Device) {
	t.Helper()
	topo, err := k.c.GetTopology(context.Background(), node)
	if err != nil {
		t.Fatal(err)
	}
	var gpus, hcas []nodeside.Device
	for _, d := range topo.Spec.Devices {
		switch d.Kind {
		case "GPU":
			gpus = append(gpus, nodeside.Device{ID: d.ID, NUMA: d.NumaNode})
		case "HCA":
			hcas = append(hcas, nodeside.Device{ID: d.ID, NUMA: d.NumaNode})
		}
	}
	return topo, gpus, hcas
}

// container is a container limiting gpus nvidia.com/gpu and hcas rdma/hca (0 leaves one out).
func container(name string, gpus, hcas int64) corev1.Container {
	limits := corev1.ResourceList{}
	if gpus > 0 {
		limits["nvidia.com/gpu"] = *resource.NewQuantity(gpus, resource.DecimalSI)
	}
	if hcas > 0 {
		limits["rdma/hca"] = *resource.NewQuantity(hcas, resource.DecimalSI)
	}
	return corev1.Container{Name: name, Image: "registry.invalid/tandem-e2e:none",
		Resources: corev1.ResourceRequirements{Limits: limits, Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}}}
}

// bindPod creates a pod of these containers pinned to node, waits for kube-scheduler and the extender
// to bind it, and returns it with its plan, which must carry a share per container. The pod is
// deleted when t ends.
func (k *cluster) bindPod(t *testing.T, ns, name, node, mode string, init, app []corev1.Container) (*corev1.Pod, *plan) {
	t.Helper()
	p := k.pod(ns, podSpec{name: name, node: node, mode: mode})
	p.Spec.InitContainers, p.Spec.Containers = init, app
	if _, err := k.c.Kube.CoreV1().Pods(ns).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.deleteNow(t, ns, name) }) // its devices are free for the next pod, whatever happens
	bound := k.waitBound(t, ns, name, 60*time.Second)
	pl := planOf(t, bound)
	if pl == nil {
		t.Fatalf("pod %s/%s bound without a tandem.dev/plan", ns, name)
	}
	for _, c := range append(append([]corev1.Container{}, init...), app...) {
		if pl.Share(c.Name) == nil {
			t.Fatalf("the plan of %s/%s has no share for container %s: %+v", ns, name, c.Name, pl)
		}
	}
	t.Logf("pod %s/%s: plan GPUs %v HCAs %v, shares %+v", ns, name, pl.GPUs, pl.HCAs, pl.Containers)
	return bound, pl
}

// admitWithGpus admits the pod with the kubelet's GPU stub plugin offering only the plan's GPUs, then
// stops the stub.
func admitWithGpus(t *testing.T, ctx context.Context, kubelet *nodeside.Kubelet, pod *corev1.Pod, planned []string, gpus []nodeside.Device) map[string]map[string][]string {
	t.Helper()
	return admitWithPlannedGpus(t, ctx, kubelet, pod, planned, gpus, nil)
}

// admitWithPlannedGpus is admitWithGpus with a GPU stub whose n-th preferred allocation is shares[n]
// (nil: no preferred allocation, the kubelet picks).
func admitWithPlannedGpus(t *testing.T, ctx context.Context, kubelet *nodeside.Kubelet, pod *corev1.Pod, planned []string, gpus []nodeside.Device, shares [][]string) map[string]map[string][]string {
	t.Helper()
	var offered []nodeside.Device
	for _, g := range gpus {
		if contains(planned, g.ID) {
			offered = append(offered, g)
		}
	}
	stub, err := nodeside.StubPluginPreferring(ctx, "nvidia.com/gpu", "gpu-podscope-"+pod.Name+".sock", offered, shares)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := stub.Stop(); err != nil {
			t.Error(err)
		}
		if err := kubelet.WaitHealthy("nvidia.com/gpu", 0, 30*time.Second); err != nil {
			t.Error(err)
		}
	}()
	if err := kubelet.WaitHealthy("nvidia.com/gpu", len(offered), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	got, err := kubelet.Admit(pod)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func envOf(t *testing.T, kubelet *nodeside.Kubelet, pod *corev1.Pod, container string) map[string]string {
	t.Helper()
	env, err := kubelet.Env(pod, container)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// slotHca is the HCA a shared-mode slot id names (mlx5_0-slot-3 → mlx5_0).
func slotHca(id string) string {
	return strings.SplitN(id, "-slot-", 2)[0]
}

// extenderHcas reads the extender's free and total HCA units of node from its inspection API.
func (k *cluster) extenderHcas(t *testing.T, node string) (int, int) {
	t.Helper()
	// the ready replica: the failover scenarios before this one may have replaced extender-0
	resp, err := http.Get(inspectionURL(k.service.Ready()) + "/topology/nodes/" + node)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		HCAs struct{ Free, Total int } `json:"hcas"`
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /topology/nodes/%s: HTTP %d", node, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.HCAs.Free, body.HCAs.Total
}

// waitExtenderFree waits until the extender counts all of the node's HCA units free.
func waitExtenderFree(t *testing.T, node string, total int, within time.Duration) {
	t.Helper()
	eventually(t, within, fmt.Sprintf("the extender counts every HCA of %s free after the pod ended", node), func(context.Context) error {
		if free, _ := cl.extenderHcas(t, node); free != total {
			return fmt.Errorf("%d of %d free", free, total)
		}
		return nil
	})
}

// assertHcaInfo checks, with the loader Multus uses, that the plugin wrote the device-info file of an
// HCA a container holds.
func assertHcaInfo(t *testing.T, id, log string) {
	t.Helper()
	info, err := nadutils.LoadDeviceInfoFromDP("rdma/hca", id)
	if err != nil || info.Pci == nil || info.Pci.RdmaDevice != id {
		t.Errorf("device-info file of HCA %s: %+v, %v; see %s", id, info, err, log)
	}
}
