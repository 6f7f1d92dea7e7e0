//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
	"tandem.dev/e2e/internal/nodeside"
)

// TestNodeSide closes the loop on one fake node: the real kube-scheduler and extender bind pods to it
// with plans, and the kubelet's own device manager admits them against Tandem's Java device plugin
// (rdma/hca) next to a GPU plugin stand-in, with PodResources answered by the kubelet's own server.
// The same pods are then admitted with a plain HCA plugin (no hints) for comparison, and finally with
// Tandem's plugin in joint mode (serving nvidia.com/gpu as well, the GPU stand-in stopped).
func TestNodeSide(t *testing.T) {
	if os.Getenv("E2E_NODESIDE") != "1" {
		t.Fatal("the node side needs a private mount namespace with a tmpfs on /var/lib/kubelet; run it with e2e/run")
	}
	cl.use(t, "node")
	nodes := cl.group(t, "node", xe8640)
	node := nodes[0]
	topo, gpus, hcas := cl.devicesOf(t, node)
	prSock := filepath.Join(cl.env.Dir, "pod-resources", "kubelet.sock")
	kubelet, err := nodeside.Start(prSock)
	if err != nil {
		t.Fatal(err)
	}
	defer kubelet.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gpuStub, err := nodeside.StubPlugin(ctx, "nvidia.com/gpu", "gpu-standin.sock", gpus)
	if err != nil {
		t.Fatal(err)
	}
	if err := kubelet.WaitHealthy("nvidia.com/gpu", len(gpus), 20*time.Second); err != nil {
		t.Fatal(err)
	}
	plugin := cl.startPlugin(t, node, xe8640, hcas, gpus, "device-plugin-"+node)
	if err := kubelet.WaitHealthy("rdma/hca", len(hcas), 60*time.Second); err != nil {
		t.Fatalf("Tandem's plugin did not register with the kubelet's device manager: %v; see %s", err, plugin.Log)
	}
	t.Logf("registration and ListAndWatch: the device manager holds %d rdma/hca and %d nvidia.com/gpu", len(hcas), len(gpus))

	// The pods below are admitted by a restarted device manager: both plugins registered again.
	if err := kubelet.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := kubelet.WaitHealthy("rdma/hca", len(hcas), 60*time.Second); err != nil {
		t.Fatalf("after a kubelet restart: %v; see %s", err, plugin.Log)
	}
	if err := kubelet.WaitHealthy("nvidia.com/gpu", len(gpus), 60*time.Second); err != nil {
		t.Fatalf("GPU stand-in after a kubelet restart: %v", err)
	}

	const perSize = 60
	with := cl.admitMany(t, kubelet, topo, "hint", perSize)
	plugin.Stop(10 * time.Second)
	plainStub, err := nodeside.StubPlugin(ctx, "rdma/hca", "plain-rdma.sock", hcas)
	if err != nil {
		t.Fatal(err)
	}
	if err := kubelet.WaitHealthy("rdma/hca", len(hcas), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	without := cl.admitMany(t, kubelet, topo, "plain", perSize)

	// Joint mode: Tandem's plugin serves nvidia.com/gpu too. Two registrations of one resource replace
	// each other, so both stand-ins stop first.
	for _, s := range []*nodeside.Stub{gpuStub, plainStub} {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	jointCfg := filepath.Join(cl.env.Dir, "joint.json")
	if err := os.WriteFile(jointCfg, []byte(`{"mode":"hca","gpu":{"enabled":true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	joint := cl.startPlugin(t, node, xe8640, hcas, gpus, "device-plugin-joint-"+node, "--config", jointCfg)
	for res, n := range map[string]int{"rdma/hca": len(hcas), "nvidia.com/gpu": len(gpus)} {
		if err := kubelet.WaitHealthy(res, n, 60*time.Second); err != nil {
			t.Fatalf("joint mode: %v; see %s", err, joint.Log)
		}
	}
	together := cl.admitMany(t, kubelet, topo, "joint", perSize)
	joint.Stop(10 * time.Second)

	report := fmt.Sprintf("Node side on %s (fixture %s), %d pods per size, kubelet device manager %s, random resource order:\n%s%s%s",
		node, xe8640.File, perSize, "k8s.io/kubernetes "+os.Getenv("E2E_K8S_VERSION"),
		with.table("with Tandem's hints"), without.table("plain HCA plugin"), together.table("joint mode"))
	t.Log(report)
	_ = os.WriteFile(filepath.Join(cl.env.Dir, "node-side-figures.txt"), []byte(report), 0o644)
	// Joint mode decides a container's GPUs and HCAs together: whenever an aligned set was free (the
	// extender's plan is aligned), the admitted set must be aligned.
	for _, s := range []int{1, 2, 4} {
		if together.aligned[s] != together.alignable[s] {
			t.Errorf("joint mode, %d GPU + %d HCA: %d of %d pods aligned, but an aligned set was free for %d",
				s, s, together.aligned[s], together.admitted[s], together.alignable[s])
		}
	}
	if together.alignable[1] == 0 || together.alignable[2] == 0 {
		t.Errorf("joint mode: no aligned set was ever free for 1+1 (%d) or 2+2 (%d) pods on the XE8640",
			together.alignable[1], together.alignable[2])
	}
	// The plugin steers HCAs only: when the kubelet happens to allocate rdma/hca first, the GPUs are
	// the GPU plugin's choice. So hints cannot guarantee alignment; they must not do worse than none.
	if sum(with.aligned) < sum(without.aligned) {
		t.Errorf("with Tandem's hints %d pods were aligned, without them %d", sum(with.aligned), sum(without.aligned))
	}
	if with.aligned[1] == 0 {
		t.Errorf("with hints no 1 GPU + 1 HCA pod got an HCA under its GPU's switch")
	}
}

// tally counts, per pod size, the pods admitted and those whose GPUs and HCAs meet under a switch.
// alignable counts the pods for which an aligned set was free: the extender's plan, chosen among the
// node's free devices, is itself aligned.
type tally struct {
	admitted, aligned, alignable, followedPlan map[int]int
}

func (t tally) table(label string) string {
	var sizes []int
	for s := range t.admitted {
		sizes = append(sizes, s)
	}
	sort.Ints(sizes)
	var b strings.Builder
	for _, s := range sizes {
		fmt.Fprintf(&b, "  %-22s %d GPU + %d HCA: %3d/%3d aligned under a switch (%3.0f%%), aligned set free %3d times, %3d got exactly the planned devices\n",
			label, s, s, t.aligned[s], t.admitted[s], 100*float64(t.aligned[s])/float64(t.admitted[s]), t.alignable[s], t.followedPlan[s])
	}
	return b.String()
}

// admitMany submits pods of 1, 2 and 4 GPUs (with as many HCAs, preferred alignment so that every
// size binds) one at a time; each is bound by kube-scheduler and the extender, admitted by the
// kubelet's device manager, measured, and deleted.
func (k *cluster) admitMany(t *testing.T, kubelet *nodeside.Kubelet, topo *harness.Topology, label string, perSize int) tally {
	t.Helper()
	res := tally{map[int]int{}, map[int]int{}, map[int]int{}, map[int]int{}}
	sizes := []int{1, 2, 4}
	for i := 0; i < perSize*len(sizes); i++ {
		s := sizes[i%len(sizes)]
		name := fmt.Sprintf("%s-%03d-g%d", label, i, s)
		pod := k.bindOne(t, "node", podSpec{name: name, gpus: s, hcas: s, mode: "preferred"})
		got, err := kubelet.Admit(pod)
		if err != nil {
			t.Fatal(err)
		}
		devs := got["main"]
		g, h := devs["nvidia.com/gpu"], devs["rdma/hca"]
		if len(g) != s || len(h) != s {
			t.Fatalf("pod %s admitted with GPUs %v and HCAs %v, asked for %d of each", name, g, h, s)
		}
		ok, _, err := topo.Aligned(g, h, harness.PXB)
		if err != nil {
			t.Fatal(err)
		}
		res.admitted[s]++
		if ok {
			res.aligned[s]++
		}
		pl := planOf(t, pod)
		if pl != nil && sameSet(pl.GPUs, g) && sameSet(pl.HCAs, h) {
			res.followedPlan[s]++
		}
		if pl != nil {
			free, _, err := topo.Aligned(pl.GPUs, pl.HCAs, harness.PXB)
			if err != nil {
				t.Fatal(err)
			}
			if free {
				res.alignable[s]++
			}
		}
		if pl != nil {
			k.detail(fmt.Sprintf("%s aligned=%v plan gpus=%v hcas=%v got gpus=%v hcas=%v hcasAsPlanned=%v\n",
				name, ok, pl.GPUs, pl.HCAs, g, h, sameSet(pl.HCAs, h)))
		}
		k.deleteNow(t, "node", name)
		kubelet.Forget(pod.UID)
	}
	return res
}

// bindOne submits the pod and waits for kube-scheduler to bind it. kube-scheduler retries an
// unschedulable pod on the previous pod's deletion, which can reach it before the extender's informer
// has seen that deletion (the extender then still counts the previous pod's devices and nothing retries
// the pod for minutes): a pod not bound within 15 s is deleted and submitted again, at most 3 times.
func (k *cluster) bindOne(t *testing.T, ns string, spec podSpec) *corev1.Pod {
	t.Helper()
	for attempt := 1; ; attempt++ {
		k.submit(t, ns, spec)
		if p, err := k.bound(ns, spec.name, 15*time.Second); err == nil {
			return p
		}
		if attempt == 3 {
			t.Fatalf("pod %s/%s not bound after %d submissions of 15 s; its events:\n%s", ns, spec.name, attempt, k.events(ns, spec.name))
		}
		t.Logf("pod %s/%s not bound within 15 s (events: %s); submitting it again", ns, spec.name, strings.TrimSpace(k.events(ns, spec.name)))
		k.deleteNow(t, ns, spec.name)
	}
}

// deleteNow deletes the pod with no grace period and waits until the API server no longer has it.
func (k *cluster) deleteNow(t *testing.T, ns, name string) {
	t.Helper()
	k.forceDelete(t, ns, name)
	eventually(t, 10*time.Second, fmt.Sprintf("pod %s/%s gone after its deletion", ns, name), func(ctx context.Context) error {
		if _, err := k.c.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (%v)", err)
		}
		return nil
	})
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}

// startKubelet starts the kubelet's device side of a new node, PodResources on prSock, until t ends.
func startKubelet(t *testing.T, prSock string) *nodeside.Kubelet {
	t.Helper()
	kubelet, err := nodeside.Start(prSock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kubelet.Stop)
	return kubelet
}

// pluginProc is a running device plugin process: its ops listener (/healthz, /readyz, /metrics) and the
// fake sysfs tree it reads.
type pluginProc struct {
	*harness.Proc
	ops   string // http://127.0.0.1:PORT
	sysfs string
}

// startPlugin runs Tandem's device plugin jar for node with its ServiceAccount, against the device
// manager's socket and the PodResources socket of the node side; extra flags (joint mode's --config)
// follow the usual ones. logName names its log file. It is stopped when t ends.
func (k *cluster) startPlugin(t *testing.T, node string, f fixture, hcas, gpus []nodeside.Device, logName string, extra ...string) *pluginProc {
	t.Helper()
	p, err := k.launchPlugin(node, f, hcas, gpus, logName, extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(10 * time.Second) })
	return p
}

// launchPlugin is startPlugin for a caller that stops the plugin itself.
func (k *cluster) launchPlugin(node string, f fixture, hcas, gpus []nodeside.Device, logName string, extra ...string) (*pluginProc, error) {
	sysfs := filepath.Join(k.env.Dir, "sysfs-"+node)
	if err := fakeSysfs(sysfs, hcas, gpus); err != nil {
		return nil, err
	}
	discovery := []string{"--hwloc-xml", k.env.Topology(f.File)}
	return k.launchPluginOn(node, sysfs, discovery, logName, extra...)
}

// launchPluginOn runs the plugin on the host root sysfs (already written) with the discovery flags
// given (a fixture's --hwloc-xml, a VM's --nccl-topo).
func (k *cluster) launchPluginOn(node, sysfs string, discovery []string, logName string, extra ...string) (*pluginProc, error) {
	kc, err := k.c.ServiceAccountKubeconfig(context.Background(), k.env, "tandem-system", "tandem-device-plugin")
	if err != nil {
		return nil, err
	}
	jar := k.env.Jar("device-plugin")
	ops := harness.FreePort()
	args := append([]string{"--node-name", node}, discovery...)
	args = append(args,
		"--kubeconfig", kc,
		"--sysfs-root", sysfs,
		"--plugin-dir", nodeside.PluginDir,
		"--pod-resources-socket", filepath.Join(k.env.Dir, "pod-resources", "kubelet.sock"),
		"--ops-port", fmt.Sprint(ops))
	argv := append([]string{k.env.Java}, javaArgs("96m", jar, args...)...)
	argv = append(argv, extra...)
	p, err := harness.Start(k.env.Logs(), logName, []string{"NODE_NAME=" + node}, argv...)
	if err != nil {
		return nil, err
	}
	return &pluginProc{Proc: p, ops: fmt.Sprintf("http://127.0.0.1:%d", ops), sysfs: sysfs}, nil
}

// fakeSysfs writes what a node with cabled, linked-up HCAs and driver-bound GPUs shows: port 1 ACTIVE
// and a uverbs character device name per HCA; per GPU the NVIDIA driver's
// proc/driver/nvidia/gpus/<pci>/information and the PCI device under sys/bus/pci/devices (what joint
// mode's GPU health reads). The hwloc fixtures carry the tree but not the live states. GPU ids are PCI
// addresses on the scrubbed fixtures (their UUIDs are all zero).
func fakeSysfs(root string, hcas, gpus []nodeside.Device) error {
	for _, g := range gpus {
		if !pciAddress.MatchString(g.ID) {
			return fmt.Errorf("GPU id %q is not a PCI address; the fake driver procfs needs one (fixture with real UUIDs?)", g.ID)
		}
		info := filepath.Join(root, "proc", "driver", "nvidia", "gpus", g.ID)
		if err := os.MkdirAll(info, 0o755); err != nil {
			return err
		}
		text := fmt.Sprintf("Model: \t\t NVIDIA H100\nBus Location: \t %s\n", g.ID)
		if err := os.WriteFile(filepath.Join(info, "information"), []byte(text), 0o644); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(root, "sys", "bus", "pci", "devices", g.ID), 0o755); err != nil {
			return err
		}
	}
	for i, h := range hcas {
		ib := filepath.Join(root, "sys", "class", "infiniband", h.ID)
		if err := os.MkdirAll(filepath.Join(ib, "ports", "1"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(ib, "ports", "1", "state"), []byte("4: ACTIVE\n"), 0o644); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(ib, "device", "infiniband_verbs", fmt.Sprintf("uverbs%d", i)), 0o755); err != nil {
			return err
		}
	}
	return nil
}

var pciAddress = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)

func sum(m map[int]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// detail appends one line to node-side-pods.txt in the run directory.
func (k *cluster) detail(line string) {
	f, err := os.OpenFile(filepath.Join(k.env.Dir, "node-side-pods.txt"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(line)
}
