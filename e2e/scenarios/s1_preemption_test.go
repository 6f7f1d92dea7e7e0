//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
)

// Preemption with the real kube-scheduler and preemptVerb. Two XE8640 nodes, each full of four
// low-priority 1 GPU + 1 HCA pods: three `switch` pods on the node's three GPU↔HCA switch pairs,
// and one `none` pod on cuda2, the GPU without an HCA under its switch. Priorities are chosen so
// that kube-scheduler's own proposals are (it gives back the most important pods first, so the two
// least important of each node are proposed):
//
//   - node 0: the `none` pod and one switch pod. Their devices include cuda2, so no 2 GPU + 2 HCA
//     `switch` set comes free. kube-scheduler alone would pick this node: its most important
//     victim has the lowest priority of the two nodes.
//   - node 1: two switch pods, whose two pairs are an aligned set.
//
// The extender drops node 0, so exactly node 1's two pods are evicted, and the preemptor binds
// there on those devices. A 4 GPU + 4 HCA `switch` pod, which no XE8640 can ever align (cuda2),
// preempts nothing.
func TestPreemptionEvictsOnlyAnAlignedSet(t *testing.T) {
	const ns = "preempt"
	cl.use(t, ns)
	nodes := cl.group(t, ns, xe8640, xe8640)
	classes := map[string]int32{"low-1": 1, "low-2": 2, "low-3": 3, "low-4": 4, "low-5": 5,
		"low-6": 6, "low-7": 7, "low-8": 8, "high": 1000}
	for name, value := range classes {
		cl.priorityClass(t, name, value)
	}
	// one at a time, so that the `none` pod finds only cuda2 and one HCA left
	fill := []podSpec{
		{name: "a-sw1", priority: "tandem-e2e-low-2"}, {name: "a-sw2", priority: "tandem-e2e-low-5"},
		{name: "a-sw3", priority: "tandem-e2e-low-6"}, {name: "a-any", alignment: "none", priority: "tandem-e2e-low-1"},
		{name: "b-sw1", priority: "tandem-e2e-low-3"}, {name: "b-sw2", priority: "tandem-e2e-low-4"},
		{name: "b-sw3", priority: "tandem-e2e-low-7"}, {name: "b-any", alignment: "none", priority: "tandem-e2e-low-8"},
	}
	held := map[string]*plan{} // pod -> plan
	for _, s := range fill {
		s.gpus, s.hcas = 1, 1
		s.node = nodes[0]
		if strings.HasPrefix(s.name, "b-") {
			s.node = nodes[1]
		}
		cl.submit(t, ns, s)
		p := cl.waitBound(t, ns, s.name, 60*time.Second)
		if held[s.name] = planOf(t, p); held[s.name] == nil || p.Spec.NodeName != s.node {
			t.Fatalf("low-priority pod %s bound to %s (want %s) with plan %v", s.name, p.Spec.NodeName, s.node, held[s.name])
		}
	}
	for _, name := range []string{"a-any", "b-any"} {
		if !contains(held[name].GPUs, "0000:cb:00.0") {
			t.Fatalf("the `none` pod %s holds %v, not cuda2 (0000:cb:00.0): the fill did not go as designed", name, held[name].GPUs)
		}
	}

	t.Run("UnalignablePodPreemptsNothing", func(t *testing.T) {
		cl.submit(t, ns, podSpec{name: "gpu4-hca4", gpus: 4, hcas: 4, priority: "tandem-e2e-high"})
		t.Cleanup(func() { cl.forceDelete(t, ns, "gpu4-hca4") })
		// Positive signal first: kube-scheduler's preemption ran and found no candidate (its verdict,
		// "preemption: …", is in the FailedScheduling event); then the absence: nothing evicted,
		// nothing nominated.
		ev := cl.waitEvent(t, ns, "gpu4-hca4", func(ev string) bool {
			return strings.Contains(ev, "FailedScheduling") && strings.Contains(ev, "preemption: ")
		}, 60*time.Second)
		t.Logf("pending with events:\n%s", ev)
		if gone := cl.terminating(t, ns); len(gone) > 0 {
			t.Fatalf("pods evicted for a pod no node can align: %v", gone)
		}
		p, err := cl.c.Kube.CoreV1().Pods(ns).Get(context.Background(), "gpu4-hca4", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Spec.NodeName != "" || p.Status.NominatedNodeName != "" {
			t.Fatalf("unalignable pod bound (%q) or nominated (%q)", p.Spec.NodeName, p.Status.NominatedNodeName)
		}
	})

	t.Run("AlignedSetIsEvictedAndUsed", func(t *testing.T) {
		cl.submit(t, ns, podSpec{name: "gpu2-hca2", gpus: 2, hcas: 2, priority: "tandem-e2e-high"})
		// kube-scheduler marks each victim (DisruptionTarget) and deletes it; with no kubelet the
		// deletion waits for a confirmation, given here as the kubelet would once the containers
		// stopped. The preemptor binds only once every victim is gone: its binding is the positive
		// signal that the preemption is over and every victim has been seen.
		evicted := map[string]bool{}
		var preemptor *corev1.Pod
		err := harness.Eventually(context.Background(), 200*time.Millisecond, 90*time.Second, func(ctx context.Context) error {
			for _, name := range cl.terminating(t, ns) {
				p, err := cl.c.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				if !disruptionTarget(p) {
					t.Errorf("victim %s has no DisruptionTarget condition from kube-scheduler's preemption: %+v", name, p.Status.Conditions)
				}
				evicted[name] = true
				cl.forceDelete(t, ns, name)
			}
			p, err := cl.c.Kube.CoreV1().Pods(ns).Get(ctx, "gpu2-hca2", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if p.Spec.NodeName == "" {
				return fmt.Errorf("preemptor not bound; %d pods evicted", len(evicted))
			}
			preemptor = p
			return nil
		})
		if err != nil {
			t.Fatalf("preemption: %v; preemptor events:\n%s", err, cl.events(ns, "gpu2-hca2"))
		}
		var victims []string
		for name := range evicted {
			victims = append(victims, name)
		}
		sort.Strings(victims)
		if strings.Join(victims, ",") != "b-sw1,b-sw2" {
			t.Fatalf("evicted %v; want exactly b-sw1,b-sw2 (the two pods on %s whose devices form an aligned set)", victims, nodes[1])
		}
		p := preemptor
		if p.Spec.NodeName != nodes[1] {
			t.Fatalf("preemptor bound to %s; its victims were on %s", p.Spec.NodeName, nodes[1])
		}
		pl := planOf(t, p)
		if pl == nil || pl.Node != nodes[1] || len(pl.GPUs) != 2 || len(pl.HCAs) != 2 {
			t.Fatalf("preemptor's plan %+v does not name 2 GPUs and 2 HCAs on %s", pl, nodes[1])
		}
		freed := append(append([]string{}, held["b-sw1"].GPUs...), held["b-sw2"].GPUs...)
		sort.Strings(freed)
		got := append([]string{}, pl.GPUs...)
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(freed, ",") {
			t.Errorf("preemptor planned GPUs %v; the victims freed %v", got, freed)
		}
		cl.assertAligned(t, p, pl, harness.PXB)
		for _, name := range []string{"a-sw1", "a-sw2", "a-sw3", "a-any", "b-sw3", "b-any"} {
			p, err := cl.c.Kube.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
			if err != nil || p.DeletionTimestamp != nil {
				t.Errorf("pod %s should be untouched: %v %v", name, err, p.GetDeletionTimestamp())
			}
		}
		cl.assertNoDoubleBooking(t, ns)
	})
}

// priorityClass creates tandem-e2e-<name> with the value, or keeps it if it exists.
func (k *cluster) priorityClass(t *testing.T, name string, value int32) {
	t.Helper()
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "tandem-e2e-" + name}, Value: value,
		Description: "tandem end-to-end preemption scenario"}
	_, err := k.c.Kube.SchedulingV1().PriorityClasses().Create(context.Background(), pc, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create PriorityClass %s: %v", pc.Name, err)
	}
}

// terminating lists the pods of ns being deleted, sorted by name.
func (k *cluster) terminating(t *testing.T, ns string) []string {
	t.Helper()
	list, err := k.c.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list.Items {
		if p.DeletionTimestamp != nil {
			out = append(out, p.Name)
		}
	}
	sort.Strings(out)
	return out
}

// forceDelete removes the pod at once (grace period 0), as the kubelet's confirmation would.
func (k *cluster) forceDelete(t *testing.T, ns, name string) {
	t.Helper()
	if err := k.c.DeletePodNow(context.Background(), ns, name); err != nil {
		t.Fatal(err)
	}
}

func disruptionTarget(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
