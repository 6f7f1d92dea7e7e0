//go:build e2e && !k8s134

package scenarios

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"tandem.dev/e2e/internal/harness"
)

// Grace trays (test-fixtures' GraceTray, written as the kernel's sysfs by MachineTrees): every GPU
// in a PCIe domain of its own. On the GB300 each ConnectX-8 has a Data Direct function under one
// GPU's switch, and discovery places the NIC there; the GB200's ConnectX-7 has none, so no GPU
// shares a switch with a NIC and only a NUMA pairing exists.
var (
	gb300CX8 = harness.Machine{File: "gb300-cx8", GPUs: 4, HCAs: 4}
	gb200CX7 = harness.Machine{File: "gb200-cx7", GPUs: 4, HCAs: 8}
)

// graceTrays are the trees whose agent (and DRA driver) discover through their libraries, not
// --sysfs-only: only libmlx5's mlx5dv_get_data_direct_sysfs_path ties a Data Direct function to its
// NIC, here the stand-in of e2e/tools/fakeibverbs answering as MachineTrees' layout says. libhwloc
// is this host's and finds no GPU or HCA, so discovery reads the tray's sysfs with libmlx5's ties.
var graceTrays = map[string]bool{gb300CX8.File: true, gb200CX7.File: true}

// TestGraceTrays: through the extender, a 1 GPU + 1 HCA switch pod is placed on the GB300 tray with
// the NIC whose Data Direct function shares its GPU's switch, and stays pending on the GB200 tray
// with the extender's reason; under tandem.dev/alignment=numa it is placed there, on one NUMA node.
func TestGraceTrays(t *testing.T) {
	const ns = "grace"
	cl.use(t, ns)
	cx8 := cl.treeNode(t, ns, ns+"-gb300-cx8", gb300CX8)
	cx7 := cl.treeNode(t, ns, ns+"-gb200-cx7", gb200CX7)
	cl.waitDataDirectNote(t, cx8, gb300Ties)
	cl.waitDataDirectNote(t, cx7, "{}")
	cl.submit(t, ns,
		podSpec{name: "cx8-switch", gpus: 1, hcas: 1, node: cx8},
		podSpec{name: "cx7-switch", gpus: 1, hcas: 1, node: cx7})

	p := cl.waitBound(t, ns, "cx8-switch", 60*time.Second)
	pl := planOf(t, p)
	if pl == nil {
		t.Fatalf("pod cx8-switch bound to %s without a plan", p.Spec.NodeName)
	}
	cl.assertAligned(t, p, pl, harness.PXB)
	t.Logf("on the GB300 tray: GPU %v with HCA %v, %s", pl.GPUs, pl.HCAs, pl.Locality)

	ev := cl.waitEvent(t, ns, "cx7-switch", func(ev string) bool {
		return strings.Contains(ev, "FailedScheduling") && extenderReason(ev)
	}, 45*time.Second)
	t.Logf("on the GB200 tray, pending with:\n%s", ev)

	cl.submit(t, ns, podSpec{name: "cx7-numa", gpus: 1, hcas: 1, alignment: "numa", node: cx7})
	q := cl.waitBound(t, ns, "cx7-numa", 60*time.Second)
	if ql := planOf(t, q); ql == nil {
		t.Fatalf("pod cx7-numa bound without a plan")
	} else {
		cl.assertAligned(t, q, ql, harness.NODE)
	}
	cl.assertNoDoubleBooking(t, ns)
}

// TestGraceTrayDevicePlugin: the device-plugin path on the GB300 tray. The agent and Tandem's plugin
// in joint mode (nvidia.com/gpu and rdma/hca) read the tray through the stand-in libraries; four 1+1
// switch pods in turn are bound by kube-scheduler and the extender, each with a plan pairing its GPU
// with the NIC whose Data Direct function shares its switch, and admitted by the kubelet's own device
// manager, which grants exactly the planned GPU and HCA; after each admission the extender's units
// equal the kubelet's and the NodeTopology audits every running pod with the locality of what it was
// granted.
func TestGraceTrayDevicePlugin(t *testing.T) {
	if os.Getenv("E2E_NODESIDE") != "1" {
		t.Fatal("the node side needs a private mount namespace with a tmpfs on /var/lib/kubelet; run it with e2e/run")
	}
	const ns = "grace-dp"
	cl.use(t, ns)
	name := ns + "-" + gb300CX8.File
	m := cl.startNodeOfGroup(t, ns, name, gb300CX8.GPUs, gb300CX8.HCAs, func(root string) error {
		return cl.writeMachineTree(gb300CX8.File, root, verbsLayout(name))
	})
	libs := fakeIbverbs(t, name)
	// the agent and the plugin alike: JAVA_TOOL_OPTIONS reaches every JVM of the node
	m.env = append(libs.env(), "JAVA_TOOL_OPTIONS="+strings.Join(libs.jvm(), " "))
	m.startAgent(t, "--sysfs-root", m.sysfs)
	cl.waitDataDirectNote(t, name, gb300Ties)
	m.startHintPlugin(t, `{"mode":"hca","gpu":{"enabled":true}}`, gb300CX8.HCAs)
	waitLog(t, m.procs[len(m.procs)-1].Log, "ibverbs: Data Direct functions "+gb300Ties, 30*time.Second)
	if err := m.kubelet.WaitHealthy("nvidia.com/gpu", gb300CX8.GPUs, 60*time.Second); err != nil {
		t.Fatalf("joint mode: %v; see %s", err, m.logs())
	}
	var running []heldPod
	for i := 0; i < gb300CX8.GPUs; i++ {
		h := m.schedule(t, ns, fmt.Sprintf("%s-%d-g1h1", name, i), podShape{gpus: 1, hcas: 1})
		running = append(running, h)
		pl := planOf(t, h.pod)
		if !sameSet(h.granted["nvidia.com/gpu"], pl.GPUs) || !sameSet(h.granted["rdma/hca"], pl.HCAs) {
			t.Errorf("pod %s granted %v + %v, planned %v + %v; see %s", h.pod.Name,
				h.granted["nvidia.com/gpu"], h.granted["rdma/hca"], pl.GPUs, pl.HCAs, m.logs())
		}
		m.assertNode(t, running, "after admitting "+h.pod.Name)
	}
}

// draGB300: the GB300 tray through the DRA driver. Each HCA is published with its Data Direct
// function (tandem.dev/dataDirect) and the switch key of the GPU it serves; four 1+1 claims are met,
// each GPU with that HCA, and a 2+2 claim and a fifth 1+1 pend.
func draGB300(t *testing.T, ns string) {
	node := cl.draTreeNode(t, ns, gb300CX8)
	topo, gpus, hcas := cl.devicesOf(t, node)
	n := cl.draNode(t, node, gpus, hcas, "")
	n.verbs = fakeIbverbs(t, node)
	_, devs := n.start(t, topo, len(gpus)+len(hcas))
	for _, d := range devs {
		if d.kind == "hca" && (d.dataDirect == "" || d.dataDirect == d.pciBus) {
			t.Errorf("HCA %s (%s at %s) published with Data Direct function %q; each GB300 NIC has one of its own", d.name, d.ibDevice, d.pciBus, d.dataDirect)
		}
	}
	n.allocateInTurn(t, ns, "gb300", []int64{1, 2, 1, 1, 1, 1}, devs, topo)
}

// draGB200: the GB200 tray through the DRA driver: no HCA has a Data Direct function or a GPU's
// switch key, so a 1+1 switch claim pends.
func draGB200(t *testing.T, ns string) {
	node := cl.draTreeNode(t, ns, gb200CX7)
	topo, gpus, hcas := cl.devicesOf(t, node)
	n := cl.draNode(t, node, gpus, hcas, "")
	n.verbs = fakeIbverbs(t, node)
	_, devs := n.start(t, topo, len(gpus)+len(hcas))
	for _, d := range devs {
		if d.kind == "hca" && d.dataDirect != "" {
			t.Errorf("HCA %s published with Data Direct function %s; the GB200's ConnectX-7 has none", d.name, d.dataDirect)
		}
	}
	if switchWithFree(devs, nil, 1) {
		t.Fatalf("a GPU and an HCA of the GB200 tray share a published switch key: %+v", devs)
	}
	cl.createDraPod(t, ns, "gb200-0-g1", n.name, 1)
	cl.waitUnschedulable(t, ns, "gb200-0-g1")
}

// gb300Ties is libmlx5's answer on the GB300 tray as discovery notes it: each card's Data Direct
// function in the domain of the GPU it serves (GraceTray.dataDirect; rail 0 with GPU 0009:06:00.0).
const gb300Ties = "{mlx5_0=0009:03:00.0, mlx5_1=0008:03:00.0, mlx5_2=0019:03:00.0, mlx5_3=0018:03:00.0}"

// waitDataDirectNote waits until the node's NodeTopology notes say its agent asked libmlx5 (the
// stand-in) for the Data Direct functions and got ties (as discovery notes the map), and read the
// tray's sysfs because libhwloc found nothing on this host.
func (k *cluster) waitDataDirectNote(t *testing.T, node, ties string) {
	t.Helper()
	eventually(t, 60*time.Second, "the notes of "+node+" with libmlx5's answer", func(context.Context) error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // the last poll's error is reported
		defer cancel()
		topo, err := k.c.GetTopology(ctx, node)
		if err != nil {
			return err
		}
		asked, sysfs := false, false
		for _, n := range topo.Status.Notes {
			asked = asked || strings.Contains(n, "ibverbs: Data Direct functions "+ties)
			sysfs = sysfs || strings.Contains(n, "hwloc found no GPU or HCA") || strings.HasPrefix(n, "hwloc: skipped")
		}
		if !asked || !sysfs {
			return fmt.Errorf("libmlx5 asked with ties %s: %v, sysfs read for want of hwloc: %v; notes %q", ties, asked, sysfs, topo.Status.Notes)
		}
		t.Logf("%s discovered through libmlx5 (ties %s): notes %q", node, ties, topo.Status.Notes)
		return nil
	})
}
