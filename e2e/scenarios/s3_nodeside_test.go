//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
	"tandem.dev/e2e/internal/nodeside"
)

// TestNodeSide closes the loop on one fake node: the real kube-scheduler and extender bind pods to it
// with plans, and the kubelet's own device manager admits them against Tandem's Java device plugin
// (rdma/hca) next to a GPU plugin stand-in, with PodResources answered by the kubelet's own server.
// The same pods are then admitted with a plain HCA plugin (no hints) for comparison.
func TestNodeSide(t *testing.T) {
	if os.Getenv("E2E_NODESIDE") != "1" {
		t.Fatal("the node side needs a private mount namespace with a tmpfs on /var/lib/kubelet; run it with e2e/run")
	}
	nodes := cl.group(t, "node", xe8640)
	node := nodes[0]
	topo, err := cl.c.GetTopology(context.Background(), node)
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
	prSock := filepath.Join(cl.env.Dir, "pod-resources", "kubelet.sock")
	kubelet, err := nodeside.Start(prSock)
	if err != nil {
		t.Fatal(err)
	}
	defer kubelet.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := nodeside.StubPlugin(ctx, "nvidia.com/gpu", "gpu-standin.sock", gpus); err != nil {
		t.Fatal(err)
	}
	if err := kubelet.WaitHealthy("nvidia.com/gpu", len(gpus), 20*time.Second); err != nil {
		t.Fatal(err)
	}
	plugin := cl.startPlugin(t, node, xe8640, hcas)
	if err := kubelet.WaitHealthy("rdma/hca", len(hcas), 60*time.Second); err != nil {
		t.Fatalf("Tandem's plugin did not register with the kubelet's device manager: %v; see %s", err, plugin.Log)
	}
	t.Logf("registration and ListAndWatch: the device manager holds %d rdma/hca and %d nvidia.com/gpu", len(hcas), len(gpus))

	t.Run("KubeletRestart", func(t *testing.T) {
		if err := kubelet.Restart(); err != nil {
			t.Fatal(err)
		}
		if err := kubelet.WaitHealthy("rdma/hca", len(hcas), 60*time.Second); err != nil {
			t.Fatalf("after a kubelet restart: %v; see %s", err, plugin.Log)
		}
		if err := kubelet.WaitHealthy("nvidia.com/gpu", len(gpus), 60*time.Second); err != nil {
			t.Fatalf("GPU stand-in after a kubelet restart: %v", err)
		}
	})

	const perSize = 60
	with := cl.admitMany(t, kubelet, topo, "hint", perSize)
	plugin.Stop(10 * time.Second)
	if _, err := nodeside.StubPlugin(ctx, "rdma/hca", "plain-rdma.sock", hcas); err != nil {
		t.Fatal(err)
	}
	if err := kubelet.WaitHealthy("rdma/hca", len(hcas), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	without := cl.admitMany(t, kubelet, topo, "plain", perSize)

	report := fmt.Sprintf("Node side on %s (fixture %s), %d pods per size, kubelet device manager %s, random resource order:\n%s%s",
		node, xe8640.file, perSize, "k8s.io/kubernetes "+os.Getenv("E2E_K8S_VERSION"), with.table("with Tandem's hints"), without.table("plain HCA plugin"))
	t.Log(report)
	_ = os.WriteFile(filepath.Join(cl.env.Dir, "node-side-figures.txt"), []byte(report), 0o644)
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
type tally struct {
	admitted, aligned, followedPlan map[int]int
}

func (t tally) table(label string) string {
	var sizes []int
	for s := range t.admitted {
		sizes = append(sizes, s)
	}
	sort.Ints(sizes)
	var b strings.Builder
	for _, s := range sizes {
		fmt.Fprintf(&b, "  %-22s %d GPU + %d HCA: %3d/%3d aligned under a switch (%3.0f%%), %3d got exactly the planned devices\n",
			label, s, s, t.aligned[s], t.admitted[s], 100*float64(t.aligned[s])/float64(t.admitted[s]), t.followedPlan[s])
	}
	return b.String()
}

// admitMany submits pods of 1, 2 and 4 GPUs (with as many HCAs, preferred alignment so that every
// size binds) one at a time; each is bound by kube-scheduler and the extender, admitted by the
// kubelet's device manager, measured, and deleted.
func (k *cluster) admitMany(t *testing.T, kubelet *nodeside.Kubelet, topo *harness.Topology, label string, perSize int) tally {
	t.Helper()
	res := tally{map[int]int{}, map[int]int{}, map[int]int{}}
	sizes := []int{1, 2, 4}
	for i := 0; i < perSize*len(sizes); i++ {
		s := sizes[i%len(sizes)]
		name := fmt.Sprintf("%s-%03d-g%d", label, i, s)
		k.submit(t, "node", podSpec{name: name, gpus: s, hcas: s, mode: "preferred"})
		pod := k.waitBound(t, "node", name, 60*time.Second)
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
			k.detail(fmt.Sprintf("%s aligned=%v plan gpus=%v hcas=%v got gpus=%v hcas=%v hcasAsPlanned=%v\n",
				name, ok, pl.GPUs, pl.HCAs, g, h, sameSet(pl.HCAs, h)))
		}
		zero := int64(0)
		if err := k.c.Kube.CoreV1().Pods("node").Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			t.Fatal(err)
		}
		kubelet.Forget(pod.UID)
	}
	return res
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

// startPlugin runs Tandem's device plugin jar for node with its ServiceAccount, against the device
// manager's socket and the PodResources socket of the node side.
func (k *cluster) startPlugin(t *testing.T, node string, f fixture, hcas []nodeside.Device) *harness.Proc {
	t.Helper()
	sysfs := filepath.Join(k.env.Dir, "sysfs-"+node)
	if err := fakeSysfs(sysfs, hcas); err != nil {
		t.Fatal(err)
	}
	kc, err := k.c.ServiceAccountKubeconfig(context.Background(), k.env, "tandem-system", "tandem-device-plugin")
	if err != nil {
		t.Fatal(err)
	}
	jar := k.env.Jar("device-plugin")
	argv := append([]string{k.env.Java}, javaArgs("96m", jar,
		"--node-name", node,
		"--hwloc-xml", k.env.Testdata(filepath.Join("topologies", f.file)),
		"--kubeconfig", kc,
		"--sysfs-root", sysfs,
		"--plugin-dir", nodeside.PluginDir,
		"--pod-resources-socket", filepath.Join(k.env.Dir, "pod-resources", "kubelet.sock"))...)
	p, err := harness.Start(k.env.Logs(), "device-plugin-"+node, []string{"NODE_NAME=" + node}, argv...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(10 * time.Second) })
	return p
}

// fakeSysfs writes what a node with cabled, linked-up HCAs shows in sysfs: port 1 ACTIVE and a uverbs
// character device name per HCA. The hwloc fixtures carry the tree but not the live port states.
func fakeSysfs(root string, hcas []nodeside.Device) error {
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
