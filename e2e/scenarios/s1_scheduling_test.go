//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
)

// Each scenario uses its own nodes (a node-selector group) and namespace, so pods that never end
// (there is no kubelet) take no devices from another scenario, whatever the order they run in.

func TestAlignedPodLandsWhereItCanBeAligned(t *testing.T) {
	cl.use(t, "aligned")
	nodes := cl.group(t, "aligned", lassen, relion, xe8640)
	cl.submit(t, "aligned", podSpec{name: "gpu2-hca2", gpus: 2, hcas: 2})
	p := cl.waitBound(t, "aligned", "gpu2-hca2", 60*time.Second)
	if p.Spec.NodeName != nodes[2] {
		t.Fatalf("2 GPU + 2 HCA pod bound to %s; only %s (XE8640) can put each GPU under a switch with an HCA", p.Spec.NodeName, nodes[2])
	}
	pl := planOf(t, p)
	if pl == nil {
		t.Fatalf("bound pod has no tandem.dev/plan annotation; annotations: %v", p.Annotations)
	}
	if pl.Node != p.Spec.NodeName || len(pl.GPUs) != 2 || len(pl.HCAs) != 2 {
		t.Fatalf("plan %+v does not match the binding to %s with 2 GPUs and 2 HCAs", pl, p.Spec.NodeName)
	}
	cl.assertAligned(t, p, pl, harness.PXB)
	if pl.Locality != "PIX" && pl.Locality != "PXB" {
		t.Errorf("plan says locality %q; the devices it names meet under a switch (PIX or PXB)", pl.Locality)
	}
	t.Run("OperatorDocCommands", func(t *testing.T) { testOperatorDocCommands(t, nodes[2], "gpu2-hca2") })
}

func TestUnalignablePodStaysPendingWithTheExtendersReason(t *testing.T) {
	// Two Lassen nodes refuse for the same reason: kube-scheduler must count them as one line.
	cl.use(t, "pending")
	cl.group(t, "pending", lassen, lassen, sl390s)
	cl.submit(t, "pending", podSpec{name: "gpu2-hca1", gpus: 2, hcas: 1})
	// Positive signal first: kube-scheduler tried the pod and recorded the extender's reason
	// (FailedScheduling); then the absence: the pod is on no node.
	ev := cl.waitEvent(t, "pending", "gpu2-hca1", func(ev string) bool {
		return strings.Contains(ev, "FailedScheduling") && extenderReason(ev)
	}, 45*time.Second)
	t.Logf("pending with events:\n%s", ev)
	if !twoLassens.MatchString(ev) {
		t.Fatalf("the two Lassen nodes' reasons were not counted together (want %q); events:\n%s", twoLassens, ev)
	}
	p, err := cl.c.Kube.CoreV1().Pods("pending").Get(context.Background(), "gpu2-hca1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending {
		t.Fatalf("pod bound to %q (phase %s), where no 2 GPUs share a switch with an HCA; plan %s",
			p.Spec.NodeName, p.Status.Phase, p.Annotations["tandem.dev/plan"])
	}
}

// twoLassens is kube-scheduler's count of the two Lassen nodes' identical reason in its
// "0/3 nodes are available: ..." message.
var twoLassens = regexp.MustCompile(`\b2 2 GPUs \+ 1 HCA need under one PCIe switch \(PXB or better, tandem\.dev/alignment=switch\); best on this node now is [A-Z]+`)

// extenderReason tells the extender's reason from kube-scheduler's own ones ("Insufficient rdma/hca"
// and the like): the extender's reasons speak of GPUs and HCAs in capitals, and switches.
func extenderReason(events string) bool {
	for _, line := range strings.Split(events, "\n") {
		if strings.Contains(line, "FailedScheduling") && (strings.Contains(line, "GPU") || strings.Contains(line, "HCA") || strings.Contains(line, "switch")) {
			return true
		}
	}
	return false
}

func TestPreferredPodStillSchedules(t *testing.T) {
	// The pending scenario's machines: nothing there can be aligned under a switch.
	cl.use(t, "preferred")
	cl.group(t, "preferred", lassen, lassen, sl390s)
	cl.submit(t, "preferred", podSpec{name: "preferred", gpus: 2, hcas: 1, mode: "preferred"})
	p := cl.waitBound(t, "preferred", "preferred", 60*time.Second)
	pl := planOf(t, p)
	if pl == nil {
		t.Fatalf("preferred pod bound to %s without a tandem.dev/plan", p.Spec.NodeName)
	}
	if pl.Node != p.Spec.NodeName || len(pl.GPUs) != 2 || len(pl.HCAs) != 1 {
		t.Fatalf("plan %+v does not match the binding to %s", pl, p.Spec.NodeName)
	}
	cl.assertNoDoubleBooking(t, "preferred")
}

func TestPodWithoutDevicesIsUntouched(t *testing.T) {
	cl.use(t, "untouched")
	cl.group(t, "untouched", relion)
	cl.submit(t, "untouched", podSpec{name: "cpu-only"})
	p := cl.waitBound(t, "untouched", "cpu-only", 60*time.Second)
	if raw, ok := p.Annotations["tandem.dev/plan"]; ok {
		t.Fatalf("pod without GPUs or HCAs got a plan: %s", raw)
	}
	for k := range p.Annotations {
		if strings.HasPrefix(k, "tandem.dev/") {
			t.Errorf("pod without GPUs or HCAs got annotation %s", k)
		}
	}
}

// assertAligned checks the plan against the tree the agent published for the pod's node.
func (k *cluster) assertAligned(t *testing.T, p *corev1.Pod, pl *plan, limit int) {
	t.Helper()
	topo, err := k.c.GetTopology(context.Background(), p.Spec.NodeName)
	if err != nil {
		t.Fatal(err)
	}
	ok, worst, err := topo.Aligned(pl.GPUs, pl.HCAs, limit)
	if err != nil {
		t.Fatalf("pod %s/%s: %v", p.Namespace, p.Name, err)
	}
	if !ok {
		t.Errorf("pod %s/%s on %s: plan GPUs %v HCAs %v meet at %s, worse than the policy allows (%s)",
			p.Namespace, p.Name, p.Spec.NodeName, pl.GPUs, pl.HCAs, harness.LocalityName(worst), harness.LocalityName(limit))
	}
}

// assertNoDoubleBooking checks every bound pod of the namespace: it has a plan for its own node with
// as many devices as it asked for, and no device of a node is planned for two pods.
func (k *cluster) assertNoDoubleBooking(t *testing.T, ns string) (bound int) {
	t.Helper()
	list, err := k.c.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ledger := harness.NewLedger()
	for i := range list.Items {
		p := &list.Items[i]
		if p.Spec.NodeName == "" {
			continue
		}
		bound++
		gpus, hcas := limitsOf(p)
		if gpus == 0 && hcas == 0 {
			continue
		}
		pl := planOf(t, p)
		if pl == nil {
			t.Errorf("pod %s bound to %s without a plan", p.Name, p.Spec.NodeName)
			continue
		}
		if pl.Node != p.Spec.NodeName || len(pl.GPUs) != gpus || len(pl.HCAs) != hcas {
			t.Errorf("pod %s (%d GPUs, %d HCAs) bound to %s has plan %+v", p.Name, gpus, hcas, p.Spec.NodeName, pl)
		}
		for _, clash := range ledger.Add(p.Name, pl) {
			t.Error(clash)
		}
	}
	return bound
}

func limitsOf(p *corev1.Pod) (gpus, hcas int) {
	for _, c := range p.Spec.Containers {
		if q, ok := c.Resources.Limits["nvidia.com/gpu"]; ok {
			gpus += int(q.Value())
		}
		if q, ok := c.Resources.Limits["rdma/hca"]; ok {
			hcas += int(q.Value())
		}
	}
	return
}

func TestTwoHundredPodsOnTwentyNodes(t *testing.T) {
	var fx []fixture
	for i := 0; i < 20; i++ {
		fx = append(fx, []fixture{xe8640, relion, lassen, xe8640, relion, sl390s, xe8640, relion, lassen, xe8640}[i%10])
	}
	cl.use(t, "load")
	cl.group(t, "load", fx...)
	var specs []podSpec
	shapes := []podSpec{
		{gpus: 1, hcas: 1}, {gpus: 2, hcas: 1}, {gpus: 2, hcas: 2},
		{gpus: 1, hcas: 1, alignment: "numa"}, {gpus: 1, hcas: 1, alignment: "root-complex"},
		{gpus: 2, hcas: 1, mode: "preferred"}, {gpus: 1},
	}
	for i := 0; i < 200; i++ {
		s := shapes[i%len(shapes)]
		s.name = fmt.Sprintf("p%03d-g%dh%d-%s", i, s.gpus, s.hcas, strings.TrimSuffix(s.alignment+"-"+s.mode, "-"))
		s.name = strings.TrimSuffix(strings.ReplaceAll(s.name, "--", "-"), "-")
		specs = append(specs, s)
	}
	start := time.Now()
	cl.submit(t, "load", specs...)
	pods := cl.waitDecided(t, "load", 4*time.Minute)
	bound := cl.assertNoDoubleBooking(t, "load")
	checked := 0
	for i := range pods {
		p := &pods[i]
		if p.Spec.NodeName == "" || p.Annotations["tandem.dev/alignment-mode"] == "preferred" {
			continue
		}
		gpus, hcas := limitsOf(p)
		if gpus == 0 || hcas == 0 {
			continue
		}
		pl := planOf(t, p)
		if pl == nil {
			continue // reported by assertNoDoubleBooking
		}
		cl.assertAligned(t, p, pl, harness.PolicyLimit(p.Annotations["tandem.dev/alignment"]))
		checked++
	}
	t.Logf("200 pods on 20 nodes: %d bound (%d required-alignment plans checked against the published trees) in %.1f s",
		bound, checked, time.Since(start).Seconds())
	if bound < 40 {
		t.Fatalf("only %d of 200 pods bound on 20 nodes with 66 GPUs", bound)
	}
}
