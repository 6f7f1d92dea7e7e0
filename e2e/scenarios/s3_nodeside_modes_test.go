//go:build e2e

package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"

	"tandem.dev/e2e/internal/harness"
	"tandem.dev/e2e/internal/nodeside"
)

// TestNodeSideModesCountAsTheKubelet: in each mode the kubelet can hand out a device's units in (shared
// HCA slots, SR-IOV VFs, time-sliced GPU replicas, MIG devices), the free units the running extender counts per
// device (its inspection API, fed by the real API server and the agent's NodeTopology) equal what the
// kubelet's own PodResources says is allocatable minus allocated, after every admission and release.
// The kubelet's ids are mapped to devices here by the rules of docs/topology.md, not by Tandem's code.
func TestNodeSideModesCountAsTheKubelet(t *testing.T) {
	if os.Getenv("E2E_NODESIDE") != "1" {
		t.Fatal("the node side needs a private mount namespace with a tmpfs on /var/lib/kubelet; run it with e2e/run")
	}
	ctx := context.Background()
	cl.use(t, "modes")
	t.Run("SharedSlots", func(t *testing.T) {
		m := cl.startModeNode(t, "modes-shared", 0, 6, func(sysfs string) error { return sriovSysfs(sysfs, nil) })
		// k8s-rdma-shared-dev-plugin's own config file, read as is: shared mode, rdma/hca, 3 slots per HCA.
		m.startTandemPlugin(t, `{"periodicUpdateInterval":300,"configList":[{"resourceName":"hca","rdmaHcaMax":3}]}`, 6)
		m.startAgent(t, "--sysfs-root", m.sysfs, "--sysfs-only")
		m.exercise(t, "rdma/hca", []int64{2, 3, 1}, "HCA", nil)
	})
	t.Run("SharedSlotsEveryDevice", func(t *testing.T) {
		m := cl.startModeNode(t, "modes-all", 0, 6, func(sysfs string) error { return sriovSysfs(sysfs, nil) })
		// allocateAllDevices: each container may open both HCAs, while the slots the kubelet granted
		// (and so PodResources, the agent's report and the extender's counts) stay its own.
		m.startTandemPlugin(t, `{"mode":"shared","slotsPerHca":3,"allocateAllDevices":true}`, 6)
		m.startAgent(t, "--sysfs-root", m.sysfs, "--sysfs-only")
		m.exercise(t, "rdma/hca", []int64{1, 3, 2}, "HCA", func(t *testing.T, pod *corev1.Pod, ids []string) {
			paths, err := m.kubelet.DevicePaths(pod, "main")
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"/dev/infiniband/rdma_cm", "/dev/infiniband/uverbs0", "/dev/infiniband/uverbs1"}
			if !reflect.DeepEqual(paths, want) {
				t.Errorf("pod %s granted %v: device nodes %v, want every HCA's %v; see %s", pod.Name, ids, paths, want, m.logs())
			}
			env, err := m.kubelet.Env(pod, "main")
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Split(env["TANDEM_RDMA_DEVICE_IDS"], ","); !sameSet(got, ids) {
				t.Errorf("pod %s: TANDEM_RDMA_DEVICE_IDS=%q, want the slots granted %v", pod.Name, env["TANDEM_RDMA_DEVICE_IDS"], ids)
			}
		})
	})
	t.Run("SriovVfs", func(t *testing.T) {
		m := cl.startModeNode(t, "modes-sriov", 0, len(sriovNode), func(sysfs string) error { return sriovSysfs(sysfs, sriovNode) })
		m.startTandemPlugin(t, `{"mode":"sriov"}`, len(sriovNode))
		m.startAgent(t, "--sysfs-root", m.sysfs, "--sysfs-only")
		m.exercise(t, "rdma/hca", []int64{2, 1, 1}, "HCA", nil)
	})
	t.Run("TimeSlicedGpus", func(t *testing.T) {
		// NVIDIA's plugin with sharing.timeSlicing advertises each GPU as <UUID>::<replica>, replicas
		// 0..n-1 (AnnotatedID in its internal/rm). The kubelet's own device-plugin stub advertises
		// exactly those ids: what is under test is the kubelet's bookkeeping of them and Tandem's
		// reading of it, not a GPU plugin's internals. The AC922 export carries real GPU UUIDs.
		const replicas = 4
		m := cl.startModeNode(t, "modes-timesliced", lassen.GPUs*replicas, lassen.HCAs, nil)
		m.startAgent(t, "--hwloc-xml", cl.env.Topology(lassen.File))
		devs := m.waitDevices(t, "GPU", lassen.GPUs)
		var ids []nodeside.Device
		for _, d := range devs {
			if !strings.HasPrefix(d.ID, "GPU-") {
				t.Fatalf("GPU %s of %s has no UUID id; time-sliced ids need one", d.ID, lassen.File)
			}
			for r := 0; r < replicas; r++ {
				ids = append(ids, nodeside.Device{ID: fmt.Sprintf("%s::%d", d.ID, r), NUMA: d.NumaNode})
			}
		}
		stub, err := nodeside.StubPlugin(ctx, "nvidia.com/gpu", "gpu-replicas.sock", ids)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = stub.Stop() })
		if err := m.kubelet.WaitHealthy("nvidia.com/gpu", len(ids), 30*time.Second); err != nil {
			t.Fatal(err)
		}
		m.exercise(t, "nvidia.com/gpu", []int64{3, 6, 2}, "GPU", nil)
	})
	t.Run("MigGpus", func(t *testing.T) {
		// NVIDIA's plugin with mig-strategy single offers every MIG device under nvidia.com/gpu, named
		// by the UUID NVML gives the MIG device (BuildDevice in its internal/rm; "MIG-<uuid>" on current
		// drivers), which says nothing of its GPU. The agent asks NVML (here the fake libnvidia-ml of
		// e2e/tools/fakenvml, loaded by JNA from --nvml-library) which GPU each belongs to only once
		// the kubelet reports such ids; its layout file is written after the agent has started.
		const perGPU = 3
		m := cl.startModeNode(t, "modes-mig", lassen.GPUs*perGPU, lassen.HCAs, nil)
		layout := filepath.Join(cl.env.Dir, "nvml-"+m.name+".json")
		m.env = []string{"FAKE_NVML_LAYOUT=" + layout}
		agent := m.startAgent(t, "--hwloc-xml", cl.env.Topology(lassen.File),
			"--nvml-library", fakeNvml(t))
		devs := m.waitDevices(t, "GPU", lassen.GPUs)
		m.mig = map[string]string{}
		var ids []nodeside.Device
		var gpus []string
		for i, d := range devs {
			var migs []string
			for j := 0; j < perGPU; j++ {
				id := fmt.Sprintf("MIG-%08x-%04x-5000-8000-%012x", 0x6a1e0000+i, j, 0xface0000+i*16+j)
				migs = append(migs, fmt.Sprintf("%q", id))
				m.mig[id] = d.ID
				ids = append(ids, nodeside.Device{ID: id, NUMA: d.NumaNode})
			}
			gpus = append(gpus, fmt.Sprintf(`{"uuid": %q, "busId": "0000%s", "migMode": "enabled", "migDevices": [%s]}`,
				d.ID, strings.ToUpper(d.Address), strings.Join(migs, ", ")))
		}
		if err := os.WriteFile(layout, []byte(`{"gpus": [`+strings.Join(gpus, ", ")+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		stub, err := nodeside.StubPlugin(ctx, "nvidia.com/gpu", "gpu-mig.sock", ids)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = stub.Stop() })
		if err := m.kubelet.WaitHealthy("nvidia.com/gpu", len(ids), 30*time.Second); err != nil {
			t.Fatal(err)
		}
		waitLog(t, agent.Log, fmt.Sprintf("MIG devices of %d GPU(s) read through NVML", lassen.GPUs), 30*time.Second)
		m.exercise(t, "nvidia.com/gpu", []int64{3, 6, 2}, "GPU", nil)
	})
}

// fakeNvml builds the stand-in libnvidia-ml (e2e/tools/fakenvml) as a shared library, once per run.
func fakeNvml(t *testing.T) string {
	t.Helper()
	out := filepath.Join(cl.env.Dir, "fakenvml", "libnvidia-ml.so.1")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "./tools/fakenvml")
	cmd.Dir = cl.env.Path("e2e")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the fake NVML library: %v\n%s", err, b)
	}
	return out
}

// modeNode is one fake node of this scenario: its Node object, a kubelet device side with
// PodResources, and the processes serving and reporting its devices.
type modeNode struct {
	name    string
	sysfs   string
	prSock  string
	kubelet *nodeside.Kubelet
	procs   []*harness.Proc
	kc      string
	env     []string          // more environment for the node's processes
	mig     map[string]string // MIG device id -> its GPU's id, as this test's NVML layout says
}

// kubeconfig is a token bound to a stand-in pod of the agent's DaemonSet on this node, as the
// DaemonSet's pods get theirs: the own-node policy refuses any other token of the agent's account.
func (m *modeNode) kubeconfig(t *testing.T) string {
	t.Helper()
	if m.kc != "" {
		return m.kc
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod, err := cl.c.StandInPod(ctx, "tandem-system", agentPodName(m.name), "tandem-node-topology-agent", m.name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.c.DeletePodNow(context.Background(), "tandem-system", pod.Name) })
	if m.kc, err = cl.c.PodBoundKubeconfig(ctx, cl.env, pod); err != nil {
		t.Fatal(err)
	}
	return m.kc
}

// startModeNode creates the Node (advertising gpus and hcas units), writes its sysfs tree when tree is
// given, and starts the kubelet's device side with PodResources on a socket of its own.
func (k *cluster) startModeNode(t *testing.T, name string, gpus, hcas int, tree func(string) error) *modeNode {
	t.Helper()
	return k.startNodeOfGroup(t, "modes", name, gpus, hcas, tree)
}

// startNodeOfGroup is startModeNode for a node of another group (tandem.dev/e2e-group label).
func (k *cluster) startNodeOfGroup(t *testing.T, group, name string, gpus, hcas int, tree func(string) error) *modeNode {
	t.Helper()
	ctx := context.Background()
	if err := k.c.CreateNode(ctx, harness.NodeSpec{Name: name, GPUs: gpus, HCAs: hcas,
		Labels: map[string]string{groupLabel: group}}); err != nil {
		t.Fatal(err)
	}
	m := &modeNode{name: name, sysfs: filepath.Join(k.env.Dir, "sysfs-"+name),
		prSock: filepath.Join(k.env.Dir, "pod-resources-"+name, "kubelet.sock")}
	if tree != nil {
		if err := tree(m.sysfs); err != nil {
			t.Fatal(err)
		}
	}
	kubelet, err := nodeside.Start(m.prSock)
	if err != nil {
		t.Fatal(err)
	}
	m.kubelet = kubelet
	t.Cleanup(kubelet.Stop)
	return m
}

func (m *modeNode) startTandemPlugin(t *testing.T, config string, units int) {
	t.Helper()
	cfg := filepath.Join(cl.env.Dir, m.name+".json")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := append([]string{cl.env.Java}, javaArgs("96m", cl.env.Jar("device-plugin"),
		"--node-name", m.name, "--sysfs-root", m.sysfs, "--config", cfg, "--no-kube",
		"--plugin-dir", nodeside.PluginDir, "--pod-resources-socket", m.prSock,
		"--ops-port", fmt.Sprint(harness.FreePort()))...)
	p := m.start(t, "device-plugin-"+m.name, argv)
	if err := m.kubelet.WaitHealthy("rdma/hca", units, 60*time.Second); err != nil {
		t.Fatalf("Tandem's plugin (%s) did not offer %d units: %v; see %s", config, units, err, p.Log)
	}
	if strings.Contains(config, "configList") {
		waitLog(t, p.Log, "k8s-rdma-shared-dev-plugin's config; read as Tandem's", 10*time.Second)
	}
}

// startAgent runs the real agent for the node with its ServiceAccount, polling PodResources every second.
func (m *modeNode) startAgent(t *testing.T, source ...string) *harness.Proc {
	t.Helper()
	argv := []string{"run", "--node-name", m.name, "--kubeconfig", m.kubeconfig(t),
		"--pod-resources-socket", m.prSock, "--poll", "1", "--port", fmt.Sprint(harness.FreePort())}
	argv = append([]string{cl.env.Java}, javaArgs("48m", cl.env.Jar("node-topology-agent"), append(argv, source...)...)...)
	return m.start(t, "agent-"+m.name, argv)
}

func (m *modeNode) start(t *testing.T, logName string, argv []string) *harness.Proc {
	t.Helper()
	env := append([]string{"NODE_NAME=" + m.name, "KUBECONFIG=" + m.kubeconfig(t)}, m.env...)
	p, err := harness.Start(cl.env.Logs(), logName, env, argv...)
	if err != nil {
		t.Fatal(err)
	}
	m.procs = append(m.procs, p)
	t.Cleanup(func() { p.Stop(10 * time.Second) })
	return p
}

// waitLog waits until the log file holds text.
func waitLog(t *testing.T, log, text string, within time.Duration) {
	t.Helper()
	eventually(t, within, fmt.Sprintf("%s says %q", log, text), func(context.Context) error {
		if b, _ := os.ReadFile(log); !strings.Contains(string(b), text) {
			return fmt.Errorf("not yet")
		}
		return nil
	})
}

func (m *modeNode) logs() string {
	var l []string
	for _, p := range m.procs {
		l = append(l, p.Log)
	}
	return strings.Join(l, ", ")
}

// exercise admits one pod per size in turn, then releases them in the same order, and after each
// step waits until the extender's free units per device of kind equal the kubelet's. admitted, when
// given, is told each pod and the ids the kubelet granted its container, right after admission.
func (m *modeNode) exercise(t *testing.T, res string, sizes []int64, kind string, admitted func(*testing.T, *corev1.Pod, []string)) {
	t.Helper()
	m.assertCountsAgree(t, res, kind, "before any pod")
	var pods []*corev1.Pod
	for i, n := range sizes {
		pod := m.createPod(t, fmt.Sprintf("%s-%d", m.name, i), res, n)
		got, err := m.kubelet.Admit(pod)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(got["main"][res])) != n {
			t.Fatalf("pod %s admitted with %s %v, asked for %d", pod.Name, res, got["main"][res], n)
		}
		if admitted != nil {
			admitted(t, pod, got["main"][res])
		}
		pods = append(pods, pod)
		m.assertCountsAgree(t, res, kind, fmt.Sprintf("after admitting %s (%d %s: %v)", pod.Name, n, res, got["main"][res]))
	}
	for _, pod := range pods {
		m.kubelet.Forget(pod.UID)
		m.assertCountsAgree(t, res, kind, "after releasing "+pod.Name)
		zero := int64(0)
		if err := cl.c.Kube.CoreV1().Pods("modes").Delete(context.Background(), pod.Name,
			metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			t.Fatal(err)
		}
	}
}

// createPod creates the pod already on the node (as if scheduled), so the agent finds it there.
func (m *modeNode) createPod(t *testing.T, name, res string, n int64) *corev1.Pod {
	t.Helper()
	q := *resource.NewQuantity(n, resource.DecimalSI)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "modes", Name: name},
		Spec: corev1.PodSpec{NodeName: m.name, Containers: []corev1.Container{{
			Name: "main", Image: "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceName(res): q}},
		}}},
	}
	created, err := cl.c.Kube.CoreV1().Pods("modes").Create(context.Background(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// inspectedDevice is a device as the extender's GET /topology/nodes/{node} shows it.
type inspectedDevice struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Address  string `json:"address"`
	NumaNode *int   `json:"numaNode"`
	Hca      *struct {
		IbDevice string `json:"ibDevice"`
	} `json:"hca"`
	State string `json:"state"`
	Units struct {
		Free  int `json:"free"`
		Total int `json:"total"`
	} `json:"units"`
}

// extenderDevices reads the node's devices from the extender that kube-scheduler calls.
func (m *modeNode) extenderDevices() ([]inspectedDevice, error) {
	resp, err := http.Get(inspectionURL(cl.service.Ready()) + "/topology/nodes/" + m.name)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /topology/nodes/%s: %d %s", m.name, resp.StatusCode, body)
	}
	var out struct {
		Devices []inspectedDevice `json:"devices"`
	}
	return out.Devices, json.Unmarshal(body, &out)
}

// waitDevices waits until the extender shows n devices of kind on the node, and returns them.
func (m *modeNode) waitDevices(t *testing.T, kind string, n int) []inspectedDevice {
	t.Helper()
	var of []inspectedDevice
	eventually(t, 90*time.Second, fmt.Sprintf("the extender shows %d %s devices of %s (see %s)", n, kind, m.name, m.logs()),
		func(context.Context) error {
			devs, err := m.extenderDevices()
			if err != nil {
				return err
			}
			of = nil
			for _, d := range devs {
				if d.Kind == kind {
					of = append(of, d)
				}
			}
			if len(of) != n {
				return fmt.Errorf("it shows %d", len(of))
			}
			return nil
		})
	return of
}

// kubeletUnits reads the kubelet's PodResources (GetAllocatableResources and List) for res and counts
// the ids of each device: allocatable and allocated.
func (m *modeNode) kubeletUnits(devs []inspectedDevice, res string) (total, used map[string]int, err error) {
	conn, err := grpc.NewClient("unix://"+m.prSock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	client := podresourcesapi.NewPodResourcesListerClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	alloc, err := client.GetAllocatableResources(ctx, &podresourcesapi.AllocatableResourcesRequest{})
	if err != nil {
		return nil, nil, err
	}
	list, err := client.List(ctx, &podresourcesapi.ListPodResourcesRequest{})
	if err != nil {
		return nil, nil, err
	}
	count := func(into map[string]int, cds []*podresourcesapi.ContainerDevices) error {
		for _, cd := range cds {
			if cd.ResourceName != res {
				continue
			}
			for _, id := range cd.DeviceIds {
				d := m.deviceOf(devs, id)
				if d == "" {
					return fmt.Errorf("the kubelet's %s id %q names no device of the tree", res, id)
				}
				into[d]++
			}
		}
		return nil
	}
	total, used = map[string]int{}, map[string]int{}
	if err := count(total, alloc.Devices); err != nil {
		return nil, nil, err
	}
	for _, p := range list.PodResources {
		for _, c := range p.Containers {
			if err := count(used, c.Devices); err != nil {
				return nil, nil, err
			}
		}
	}
	return total, used, nil
}

var slotSuffix = regexp.MustCompile(`-slot-[0-9]+$`)

// deviceOf maps a kubelet id to the tree device it stands for, by docs/topology.md's table: the id
// itself, a PCI address (a VF, a GPU known by bus id), a shared slot of an HCA, a GPU replica, a MIG
// device (by the layout this test gave NVML).
func (m *modeNode) deviceOf(devs []inspectedDevice, id string) string {
	base := slotSuffix.ReplaceAllString(id, "")
	if i := strings.Index(base, "::"); i > 0 {
		base = base[:i]
	}
	if gpu, ok := m.mig[base]; ok {
		base = gpu
	}
	for _, d := range devs {
		if d.ID == base || d.Address == base || (d.Hca != nil && d.Hca.IbDevice == base) {
			return d.ID
		}
	}
	return ""
}

// assertCountsAgree waits until, for every device of kind, the extender's free and total units equal
// the kubelet's allocatable minus allocated and allocatable ids of that device.
func (m *modeNode) assertCountsAgree(t *testing.T, res, kind, when string) {
	t.Helper()
	var report string
	err := harness.Eventually(context.Background(), 250*time.Millisecond, 30*time.Second, func(context.Context) error {
		var ok bool
		var err error
		if report, ok, err = m.compare(res, kind); err != nil {
			return harness.Permanent(err)
		}
		if !ok {
			return fmt.Errorf("extender and kubelet disagree (device: extender free/total vs kubelet free/total): %s", report)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s, %s: %v; see %s", m.name, when, err, m.logs())
	}
	t.Logf("%s, %s: extender = kubelet per device (free/total): %s", m.name, when, report)
}

func (m *modeNode) compare(res, kind string) (string, bool, error) {
	devs, err := m.extenderDevices()
	if err != nil {
		return "", false, nil // the extender has not seen the node yet
	}
	total, used, err := m.kubeletUnits(devs, res)
	if err != nil {
		return "", false, err
	}
	var parts []string
	ok, anyUnit := true, false
	for _, d := range devs {
		if d.Kind != kind {
			continue
		}
		free := total[d.ID] - used[d.ID]
		anyUnit = anyUnit || total[d.ID] > 0
		// a device some of whose units the kubelet granted shows as allocated, whatever id it granted
		wantState := map[bool]string{true: "allocated", false: "free"}[used[d.ID] > 0]
		same := d.Units.Free == free && d.Units.Total == total[d.ID] && d.State == wantState
		ok = ok && same
		mark := ""
		if !same {
			mark = fmt.Sprintf(" (%s) vs %d/%d (%s)", d.State, free, total[d.ID], wantState)
		}
		parts = append(parts, fmt.Sprintf("%s %d/%d%s", d.ID, d.Units.Free, d.Units.Total, mark))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", "), ok && anyUnit && len(parts) > 0, nil
}
