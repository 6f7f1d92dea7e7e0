//go:build e2e

package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
	"tandem.dev/e2e/internal/nodeside"
)

// TestNodeSideModesScheduled is issue #15's proof for the modes where the kubelet hands out units of a
// device (shared HCA slots, SR-IOV VFs, time-sliced GPU replicas): GPU + HCA pods of several shapes,
// created without a node, are bound by the real kube-scheduler and extender (filter, prioritize, bind,
// the plan annotation), admitted by the kubelet's own device manager against Tandem's plugin (hint
// mode: the GPUs come from the kubelet's stub plugin, as NVIDIA's plugin would serve them), and
// deleted in between. After every admission and deletion, within a bound: the extender's free and
// total units per device equal what the kubelet's PodResources says; no id is granted to two running
// containers; every running pod, and only those, is audited in its NodeTopology with the locality of
// the devices the kubelet really granted, and no id is noted as not audited.
func TestNodeSideModesScheduled(t *testing.T) {
	if os.Getenv("E2E_NODESIDE") != "1" {
		t.Fatal("the node side needs a private mount namespace with a tmpfs on /var/lib/kubelet; run it with e2e/run")
	}
	started := time.Now()
	for _, ns := range []string{"sched-shared", "sched-sriov", "sched-timesliced"} {
		cl.use(t, ns)
	}
	// 1+1 with the default switch/required (always alignable on the switch node whenever a GPU is
	// free: every switch has as many units as GPUs in use could take), and preferred 2+2 and 2+1.
	switchShapes := []podShape{{1, 1, ""}, {2, 2, "preferred"}, {2, 1, "preferred"}}
	t.Run("SharedSlots", func(t *testing.T) {
		const slots = 4
		m := cl.startNodeOfGroup(t, "sched-shared", "sched-shared-0", len(switchGpus), 2*slots,
			func(sysfs string) error { return gpuSwitchSysfs(sysfs, nil) })
		m.startAgent(t, "--sysfs-root", m.sysfs, "--sysfs-only")
		m.startHintPlugin(t, fmt.Sprintf(`{"mode":"shared","slotsPerHca":%d}`, slots), 2*slots)
		m.serveSwitchGpus(t)
		m.churn(t, "sched-shared", len(switchGpus), 2*slots, switchShapes, 10)
	})
	t.Run("SriovVfs", func(t *testing.T) {
		m := cl.startNodeOfGroup(t, "sched-sriov", "sched-sriov-0", len(switchGpus), len(switchVfs),
			func(sysfs string) error { return gpuSwitchSysfs(sysfs, switchVfs) })
		m.startAgent(t, "--sysfs-root", m.sysfs, "--sysfs-only")
		m.startHintPlugin(t, `{"mode":"sriov"}`, len(switchVfs))
		m.serveSwitchGpus(t)
		m.churn(t, "sched-sriov", len(switchGpus), len(switchVfs), switchShapes, 10)
	})
	t.Run("TimeSlicedGpus", func(t *testing.T) {
		// NVIDIA's plugin with sharing.timeSlicing advertises <UUID>::<replica> (AnnotatedID in its
		// internal/rm); the AC922 export carries real UUIDs. Its GPUs and HCAs meet at NODE at best, so
		// every pod is preferred.
		const replicas = 4
		m := cl.startNodeOfGroup(t, "sched-timesliced", "sched-timesliced-0", lassen.GPUs*replicas, lassen.HCAs, nil)
		xml := cl.env.Topology(lassen.File)
		m.startAgent(t, "--hwloc-xml", xml)
		var ids []nodeside.Device
		for _, d := range m.waitDevices(t, "GPU", lassen.GPUs) {
			for r := 0; r < replicas; r++ {
				ids = append(ids, nodeside.Device{ID: fmt.Sprintf("%s::%d", d.ID, r), NUMA: d.NumaNode})
			}
		}
		var hcas []nodeside.Device
		for _, d := range m.waitDevices(t, "HCA", lassen.HCAs) {
			hcas = append(hcas, nodeside.Device{ID: d.ID, NUMA: d.NumaNode})
		}
		if err := fakeSysfs(m.sysfs, hcas, nil); err != nil { // port states: the export has none
			t.Fatal(err)
		}
		waitPlugin := m.launchHintPlugin(t, `{"mode":"hca"}`, lassen.HCAs, "--hwloc-xml", xml)
		m.serveGpus(t, ids)
		waitPlugin()
		m.churn(t, "sched-timesliced", len(ids), lassen.HCAs, []podShape{{1, 1, "preferred"}, {2, 2, "preferred"}, {3, 1, "preferred"}}, 10)
	})
	t.Logf("three modes, 30 pods scheduled, admitted and deleted in %.1f s", time.Since(started).Seconds())
}

// podShape is what a pod of the scenario asks for: GPUs, HCA units and tandem.dev/alignment-mode.
type podShape struct {
	gpus, hcas int
	mode       string
}

// heldPod is a pod the kubelet admitted: its object and the ids each resource got.
type heldPod struct {
	pod     *corev1.Pod
	shape   podShape
	granted map[string][]string
}

// switchGpus are the GPUs of the switch node: two beside each ConnectX PF, below the PF's bridge, with
// the UUIDs NVIDIA's driver reports in /proc/driver/nvidia/gpus/<address>/information.
var switchGpus = []struct{ addr, uuid string }{
	{"0000:01:01.0", "GPU-5e1f0a01-0000-4000-8000-000000000001"},
	{"0000:01:02.0", "GPU-5e1f0a01-0000-4000-8000-000000000002"},
	{"0000:02:01.0", "GPU-5e1f0a01-0000-4000-8000-000000000003"},
	{"0000:02:02.0", "GPU-5e1f0a01-0000-4000-8000-000000000004"},
}

// switchVfs are four RDMA VFs of each PF of the switch node.
var switchVfs = []vf{
	{"0000:01:00.2", "0000:01:00.0", "mlx5_2"}, {"0000:01:00.3", "0000:01:00.0", "mlx5_3"},
	{"0000:01:00.4", "0000:01:00.0", "mlx5_4"}, {"0000:01:00.5", "0000:01:00.0", "mlx5_5"},
	{"0000:02:00.2", "0000:02:00.0", "mlx5_6"}, {"0000:02:00.3", "0000:02:00.0", "mlx5_7"},
	{"0000:02:00.4", "0000:02:00.0", "mlx5_8"}, {"0000:02:00.5", "0000:02:00.0", "mlx5_9"},
}

// gpuSwitchSysfs writes the CNI scenario's node (two ConnectX PFs, each on a bridge of its own, with
// vfs) and, below each PF's bridge, two NVIDIA GPUs as sysfs and the driver's procfs show them: a GPU
// and an HCA below one bridge meet at PIX, across the two bridges at PHB.
func gpuSwitchSysfs(root string, vfs []vf) error {
	if err := sriovSysfs(root, vfs); err != nil {
		return err
	}
	sys := filepath.Join(root, "sys")
	for _, g := range switchGpus {
		dir := filepath.Join(sys, "devices", "pci0000:00", fmt.Sprintf("0000:00:%02x.0", g.addr[6]-'0'), g.addr)
		info := fmt.Sprintf("Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t %s\nBus Location: \t %s\n", g.uuid, g.addr)
		files := map[string]string{
			filepath.Join(dir, "class"): "0x030200\n", filepath.Join(dir, "vendor"): "0x10de\n",
			filepath.Join(dir, "device"): "0x2330\n", filepath.Join(dir, "numa_node"): "0\n",
			filepath.Join(dir, "local_cpulist"):                                            "0-3\n",
			filepath.Join(root, "proc", "driver", "nvidia", "gpus", g.addr, "information"): info,
		}
		for p, text := range files {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				return err
			}
		}
		link := filepath.Join(sys, "bus", "pci", "devices", g.addr)
		rel, err := filepath.Rel(filepath.Dir(link), dir)
		if err != nil {
			return err
		}
		if err := os.Symlink(rel, link); err != nil {
			return err
		}
	}
	return nil
}

// serveSwitchGpus serves the switch node's GPUs by UUID with the kubelet's stub plugin, once the agent
// has published them under those ids.
func (m *modeNode) serveSwitchGpus(t *testing.T) {
	t.Helper()
	var ids []nodeside.Device
	for _, d := range m.waitDevices(t, "GPU", len(switchGpus)) {
		if !strings.HasPrefix(d.ID, "GPU-") {
			t.Fatalf("GPU %s of %s is not named by the driver's UUID (want one of %+v); see %s", d.ID, m.name, switchGpus, m.logs())
		}
		ids = append(ids, nodeside.Device{ID: d.ID, NUMA: d.NumaNode})
	}
	m.serveGpus(t, ids)
}

// serveGpus serves nvidia.com/gpu with these ids through the kubelet's own stub plugin (no preferred
// allocation: the kubelet picks among the available ids, as beside a GPU plugin that ignores HCAs).
func (m *modeNode) serveGpus(t *testing.T, ids []nodeside.Device) {
	t.Helper()
	stub, err := nodeside.StubPlugin(context.Background(), "nvidia.com/gpu", "gpu-"+m.name+".sock", ids)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stub.Stop() })
	if err := m.kubelet.WaitHealthy("nvidia.com/gpu", len(ids), 30*time.Second); err != nil {
		t.Fatal(err)
	}
}

// startHintPlugin runs Tandem's plugin jar for the node as the DaemonSet does: its ServiceAccount (it
// reads the pod being admitted and its plan), the node's PodResources socket, config, and source flags
// (sysfs under m.sysfs when none), and waits until the kubelet holds its units.
func (m *modeNode) startHintPlugin(t *testing.T, config string, units int, source ...string) {
	t.Helper()
	m.launchHintPlugin(t, config, units, source...)()
}

// launchHintPlugin is startHintPlugin returning the wait, for a caller with more to start meanwhile.
func (m *modeNode) launchHintPlugin(t *testing.T, config string, units int, source ...string) func() {
	t.Helper()
	cfg := filepath.Join(cl.env.Dir, m.name+".json")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	kc, err := cl.c.ServiceAccountKubeconfig(context.Background(), cl.env, "tandem-system", "tandem-device-plugin")
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{cl.env.Java}, javaArgs("96m", cl.env.Jar("device-plugin"),
		"--node-name", m.name, "--kubeconfig", kc, "--sysfs-root", m.sysfs, "--config", cfg,
		"--plugin-dir", nodeside.PluginDir, "--pod-resources-socket", m.prSock,
		"--ops-port", fmt.Sprint(harness.FreePort()))...)
	p := m.start(t, "device-plugin-"+m.name, append(argv, source...))
	return func() {
		t.Helper()
		if err := m.kubelet.WaitHealthy("rdma/hca", units, 60*time.Second); err != nil {
			t.Fatalf("Tandem's plugin (%s) did not offer %d units: %v; see %s", config, units, err, p.Log)
		}
	}
}

// mustDevices is the node's devices as the extender shows them now.
func (m *modeNode) mustDevices(t *testing.T) []inspectedDevice {
	t.Helper()
	devs, err := m.extenderDevices()
	if err != nil {
		t.Fatal(err)
	}
	return devs
}

// churn submits pods of the shapes in turn to namespace ns (the node's group), deleting the oldest
// running pods first whenever the next one would not fit the node's units, then deletes the rest; the
// node is checked after every admission and every deletion.
func (m *modeNode) churn(t *testing.T, ns string, gpus, hcas int, shapes []podShape, pods int) {
	t.Helper()
	var running []heldPod
	freeG, freeH := gpus, hcas
	deletions := 0
	release := func() {
		h := running[0]
		running = running[1:]
		cl.deleteNow(t, ns, h.pod.Name)
		m.kubelet.Forget(h.pod.UID)
		freeG, freeH = freeG+h.shape.gpus, freeH+h.shape.hcas
		m.assertNode(t, running, "after deleting "+h.pod.Name)
		deletions++
	}
	m.assertNode(t, running, "before any pod")
	start := time.Now()
	for i := 0; i < pods; i++ {
		s := shapes[i%len(shapes)]
		for freeG < s.gpus || freeH < s.hcas {
			release()
		}
		h := m.schedule(t, ns, fmt.Sprintf("%s-%02d-g%dh%d", m.name, i, s.gpus, s.hcas), s)
		running = append(running, h)
		freeG, freeH = freeG-s.gpus, freeH-s.hcas
		m.assertNode(t, running, fmt.Sprintf("after admitting %s (GPUs %v, HCA units %v)",
			h.pod.Name, h.granted["nvidia.com/gpu"], h.granted["rdma/hca"]))
	}
	interleaved := deletions
	for len(running) > 0 {
		release()
	}
	t.Logf("%s: %d pods scheduled, admitted and deleted (%d deletions between admissions) in %.1f s",
		m.name, pods, interleaved, time.Since(start).Seconds())
}

// schedule creates the pod without a node, waits for kube-scheduler and the extender to bind it to
// this node with a plan of the pod's counts (aligned under a switch when the pod requires it), and
// admits it with the kubelet's device manager.
func (m *modeNode) schedule(t *testing.T, ns, name string, s podShape) heldPod {
	t.Helper()
	pod := cl.bindOne(t, ns, podSpec{name: name, gpus: s.gpus, hcas: s.hcas, mode: s.mode})
	pl := planOf(t, pod)
	if pod.Spec.NodeName != m.name || pl == nil || pl.Node != m.name || len(pl.GPUs) != s.gpus || len(pl.HCAs) != s.hcas {
		t.Fatalf("pod %s (%d GPUs, %d HCA units) bound to %q with plan %+v; want node %s and the pod's counts",
			name, s.gpus, s.hcas, pod.Spec.NodeName, pl, m.name)
	}
	if s.mode == "" {
		gpus, hcas := m.treeIds(t, pl.GPUs), m.treeIds(t, pl.HCAs)
		if ok, worst, err := m.topology(t).Aligned(gpus, hcas, harness.PXB); err != nil || !ok {
			t.Fatalf("pod %s requires switch alignment; its plan %v + %v meets at %s (err %v)",
				name, pl.GPUs, pl.HCAs, harness.LocalityName(worst), err)
		}
	}
	got, err := m.kubelet.Admit(pod)
	if err != nil {
		t.Fatal(err)
	}
	granted := got["main"]
	if len(granted["nvidia.com/gpu"]) != s.gpus || len(granted["rdma/hca"]) != s.hcas {
		t.Fatalf("pod %s admitted with %v, asked for %d GPUs and %d HCA units", name, granted, s.gpus, s.hcas)
	}
	t.Logf("%s: plan %v + %v (%s), kubelet granted %v + %v", name, pl.GPUs, pl.HCAs, pl.Locality,
		granted["nvidia.com/gpu"], granted["rdma/hca"])
	return heldPod{pod: pod, shape: s, granted: granted}
}

// treeIds maps kubelet or plan ids to the devices of the node's tree (topology.md's rules, in Go).
func (m *modeNode) treeIds(t *testing.T, ids []string) []string {
	t.Helper()
	devs := m.mustDevices(t)
	var out []string
	for _, id := range ids {
		d := m.deviceOf(devs, id)
		if d == "" {
			t.Fatalf("id %q names no device of %s's tree", id, m.name)
		}
		out = append(out, d)
	}
	return out
}

func (m *modeNode) topology(t *testing.T) *harness.Topology {
	t.Helper()
	topo, err := cl.c.GetTopology(context.Background(), m.name)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// assertNode checks the node after a step: at once, that the kubelet granted no id of a resource to two
// running containers and holds exactly the running pods' ids; then, polling for at most 30 s, that the
// extender's units per device equal the kubelet's for both resources and that the NodeTopology audits
// exactly the running pods, each with the locality of what it was granted.
func (m *modeNode) assertNode(t *testing.T, running []heldPod, when string) {
	t.Helper()
	m.assertGrantedOnce(t, running, when)
	err := harness.Eventually(context.Background(), 100*time.Millisecond, 30*time.Second, func(context.Context) error {
		var problems []string
		for _, r := range [][2]string{{"rdma/hca", "HCA"}, {"nvidia.com/gpu", "GPU"}} {
			report, ok, err := m.compare(r[0], r[1])
			if err != nil {
				return harness.Permanent(err)
			}
			if !ok {
				problems = append(problems, fmt.Sprintf("%s units differ (device: extender free/total vs kubelet): %s", r[0], report))
			}
		}
		if problems = append(problems, m.auditProblems(t, running)...); len(problems) > 0 {
			return fmt.Errorf("\n  %s", strings.Join(problems, "\n  "))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s, %s: %v\nsee %s", m.name, when, err, m.logs())
	}
}

// assertGrantedOnce reads PodResources List: every id of a resource is held by one container only, and
// the ids held are those the running pods were admitted with.
func (m *modeNode) assertGrantedOnce(t *testing.T, running []heldPod, when string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	listed, err := nodeside.PodDevices(ctx, m.prSock)
	if err != nil {
		t.Fatal(err)
	}
	holder := map[string]string{} // resource/id -> namespace/pod/container
	for c, byRes := range listed {
		for res, ids := range byRes {
			for _, id := range ids {
				if other, dup := holder[res+"/"+id]; dup {
					t.Fatalf("%s, %s: the kubelet granted %s %s to %s and to %s", m.name, when, res, id, other, c)
				}
				holder[res+"/"+id] = c
			}
		}
	}
	want := map[string]string{}
	for _, h := range running {
		for res, ids := range h.granted {
			for _, id := range ids {
				want[res+"/"+id] = h.pod.Namespace + "/" + h.pod.Name + "/main"
			}
		}
	}
	if fmt.Sprint(sortedPairs(holder)) != fmt.Sprint(sortedPairs(want)) {
		t.Fatalf("%s, %s: PodResources lists %v, the running pods were granted %v", m.name, when, sortedPairs(holder), sortedPairs(want))
	}
}

func sortedPairs(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// nodeAudit is the audit part of a NodeTopology's status.
type nodeAudit struct {
	Status struct {
		Audit []struct {
			PodUID        string `json:"podUid"`
			Pod           string `json:"pod"`
			WorstLocality string `json:"worstLocality"`
			Policy        string `json:"policy"`
		} `json:"audit"`
		Notes []string `json:"notes"`
	} `json:"status"`
}

var localityRank = map[string]int{"PIX": harness.PXB, "PXB": harness.PXB, "PHB": harness.PHB, "NODE": harness.NODE, "SYS": harness.SYS}

// auditProblems compares the node's published audit with the running pods: one entry per running pod,
// none for another, each naming the worst locality of the GPUs and HCAs the kubelet granted it in the
// published tree; no id noted as not audited.
func (m *modeNode) auditProblems(t *testing.T, running []heldPod) []string {
	t.Helper()
	u, err := cl.c.Dynamic.Resource(harness.NodeTopologies).Get(context.Background(), m.name, metav1.GetOptions{})
	if err != nil {
		return []string{err.Error()}
	}
	raw, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	var a nodeAudit
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, n := range a.Status.Notes {
		if strings.Contains(n, "not audited") {
			problems = append(problems, "note: "+n)
		}
	}
	audited := map[string]string{}
	for _, e := range a.Status.Audit {
		audited[e.PodUID] = e.WorstLocality
	}
	topo := m.topology(t)
	for _, h := range running {
		got, ok := audited[string(h.pod.UID)]
		delete(audited, string(h.pod.UID))
		_, worst, err := topo.Aligned(m.treeIds(t, h.granted["nvidia.com/gpu"]), m.treeIds(t, h.granted["rdma/hca"]), harness.SYS)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("pod %s (running) is not audited", h.pod.Name))
		case localityRank[got] != worst:
			problems = append(problems, fmt.Sprintf("pod %s audited %q; its GPUs %v and HCA units %v meet at %s",
				h.pod.Name, got, h.granted["nvidia.com/gpu"], h.granted["rdma/hca"], harness.LocalityName(worst)))
		}
	}
	for uid, l := range audited {
		problems = append(problems, fmt.Sprintf("pod uid %s audited (%s) though it no longer runs", uid, l))
	}
	return problems
}
