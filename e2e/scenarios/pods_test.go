//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"tandem.dev/e2e/internal/harness"
)

const groupLabel = "tandem.dev/e2e-group"

// plan is the tandem.dev/plan annotation the extender writes on bind.
type plan = harness.Plan

// podSpec is a pod the scenarios submit: g GPUs and h HCAs, with an optional alignment policy.
type podSpec struct {
	name       string
	gpus, hcas int
	alignment  string            // tandem.dev/alignment, "" = the default
	mode       string            // tandem.dev/alignment-mode, "" = the default
	priority   string            // spec.priorityClassName, "" = none
	node       string            // pinned to this node (kubernetes.io/hostname), "" = any of the group
	annotate   map[string]string // further annotations (a gang's keys)
}

// group creates the fake nodes of one scenario (label tandem.dev/e2e-group=<group>), runs the real
// agent for each, and waits for every NodeTopology to carry the node's device counts.
func (k *cluster) group(t *testing.T, group string, fixtures ...fixture) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := k.c.EnsureNamespace(ctx, group); err != nil {
		t.Fatal(err)
	}
	var names []string
	var wg sync.WaitGroup
	errs := make(chan error, len(fixtures))
	sem := make(chan struct{}, 4) // JVM start-ups at once on a 2-core machine
	for i, f := range fixtures {
		name := fmt.Sprintf("%s-%02d-%s", group, i, f.Short())
		names = append(names, name)
		if err := k.c.CreateNode(ctx, harness.NodeSpec{Name: name, GPUs: f.GPUs, HCAs: f.HCAs,
			Labels: map[string]string{groupLabel: group}}); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(name string, f fixture) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := k.startAgent(name, f); err != nil {
				errs <- err
			}
		}(name, f)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, name := range names {
		if err := k.waitTopology(ctx, name, fixtures[i]); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// plainNode creates a fake node of the group that runs no agent (a GPU node Tandem does not govern,
// or an RDMA node whose agent is not installed): it never gets a NodeTopology.
func (k *cluster) plainNode(t *testing.T, group, suffix string, gpus, hcas int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := k.c.EnsureNamespace(ctx, group); err != nil {
		t.Fatal(err)
	}
	name := group + "-plain-" + suffix
	if err := k.c.CreateNode(ctx, harness.NodeSpec{Name: name, GPUs: gpus, HCAs: hcas,
		Labels: map[string]string{groupLabel: group}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// waitTopology waits until the agent of node has published a NodeTopology with the fixture's counts,
// and the extender kube-scheduler calls holds it (its inspection API knows the node): kube-scheduler
// does not try a pod again when a NodeTopology arrives, so a pod it tried before the extender held
// the node's would wait for an unrelated event.
func (k *cluster) waitTopology(ctx context.Context, node string, f fixture) error {
	err := harness.Eventually(ctx, 250*time.Millisecond, 3*time.Minute, func(ctx context.Context) error {
		topo, err := k.c.GetTopology(ctx, node)
		if err == nil && (topo.Spec.Summary.GPUs != f.GPUs || topo.Spec.Summary.HCAs != f.HCAs) {
			err = fmt.Errorf("NodeTopology %s says %d GPUs and %d HCAs, the fixture %s has %d and %d",
				node, topo.Spec.Summary.GPUs, topo.Spec.Summary.HCAs, f.File, f.GPUs, f.HCAs)
		}
		k.mu.Lock()
		p := k.agents[node]
		k.mu.Unlock()
		if err != nil && p != nil && !p.Running() {
			return harness.Permanent(fmt.Errorf("the agent exited before publishing its NodeTopology (%v); see %s", err, p.Log))
		}
		if err != nil {
			return err
		}
		code, body, err := harness.Get(inspectionURL(k.service.Ready()) + "/topology/nodes/" + node)
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("the extender does not hold it yet (GET /topology/nodes/%s: %d %s)", node, code, body)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("no NodeTopology for %s: %w", node, err)
	}
	return nil
}

func (k *cluster) pod(group string, s podSpec) *corev1.Pod {
	limits, ann := harness.DeviceAsk(s.gpus, s.hcas, s.alignment, s.mode)
	for k, v := range s.annotate {
		ann[k] = v
	}
	requests := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
	selector := map[string]string{groupLabel: group}
	if s.node != "" {
		selector["kubernetes.io/hostname"] = s.node
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: s.name, Namespace: group, Annotations: ann},
		Spec: corev1.PodSpec{
			SchedulerName:     k.schedName,
			NodeSelector:      selector,
			PriorityClassName: s.priority,
			Containers: []corev1.Container{{
				Name: "main", Image: "registry.invalid/tandem-e2e:none",
				Resources: corev1.ResourceRequirements{Limits: limits, Requests: requests},
			}},
		},
	}
}

// submit creates the pods concurrently (as a burst of kubectl apply would).
func (k *cluster) submit(t *testing.T, group string, specs ...podSpec) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(specs))
	sem := make(chan struct{}, 32)
	for _, s := range specs {
		wg.Add(1)
		go func(s podSpec) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			_, err := k.c.Kube.CoreV1().Pods(group).Create(context.Background(), k.pod(group, s), metav1.CreateOptions{})
			if err != nil {
				errs <- fmt.Errorf("create pod %s/%s: %w", group, s.name, err)
			}
		}(s)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// waitBound waits until the pod has a node and returns it.
func (k *cluster) waitBound(t *testing.T, ns, name string, timeout time.Duration) *corev1.Pod {
	t.Helper()
	p, err := k.bound(ns, name, timeout)
	if err != nil {
		t.Fatalf("pod %s/%s not bound: %v; its events:\n%s", ns, name, err, k.events(ns, name))
	}
	return p
}

// bound polls the pod until it has a node, for at most timeout.
func (k *cluster) bound(ns, name string, timeout time.Duration) (*corev1.Pod, error) {
	var bound *corev1.Pod
	err := harness.Eventually(context.Background(), 100*time.Millisecond, timeout, func(ctx context.Context) error {
		p, err := k.c.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Spec.NodeName == "" {
			return fmt.Errorf("no node yet")
		}
		bound = p
		return nil
	})
	return bound, err
}

// events lists the pod's events, one line each.
func (k *cluster) events(ns, name string) string {
	list, err := k.c.Kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.name", name).String(),
	})
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, e := range list.Items {
		fmt.Fprintf(&b, "  %s %s (%s): %s\n", e.Type, e.Reason, e.Source.Component+e.ReportingController, e.Message)
	}
	return b.String()
}

// waitEvent waits until the pod's events, one line each, pass match, and returns them.
func (k *cluster) waitEvent(t *testing.T, ns, name string, match func(events string) bool, timeout time.Duration) string {
	t.Helper()
	var ev string
	err := harness.Eventually(context.Background(), 250*time.Millisecond, timeout, func(context.Context) error {
		if ev = k.events(ns, name); !match(ev) {
			return fmt.Errorf("no such event yet")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("events of %s/%s: %v; its events:\n%s", ns, name, err, ev)
	}
	return ev
}

// carries matches events of which one contains text.
func carries(text string) func(string) bool {
	return func(ev string) bool { return strings.Contains(ev, text) }
}

// planOf decodes the pod's tandem.dev/plan annotation (nil when absent).
func planOf(t *testing.T, p *corev1.Pod) *plan {
	t.Helper()
	pl, err := harness.PlanOf(p)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// waitDecided waits until kube-scheduler has decided about every pod of ns: each is bound or has
// its PodScheduled condition False with reason Unschedulable (kube-scheduler and the extender found
// no node for it; an error, such as an unreachable extender, is reason SchedulerError and is retried).
// That is the positive signal a scenario waits for before it asserts that no more pods bind. It
// returns the pods as they were then.
func (k *cluster) waitDecided(t *testing.T, ns string, timeout time.Duration) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	err := harness.Eventually(context.Background(), 500*time.Millisecond, timeout, func(ctx context.Context) error {
		list, err := k.c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		var open []string
		for i := range list.Items {
			if p := &list.Items[i]; p.Spec.NodeName == "" && !unschedulable(p) {
				open = append(open, p.Name)
			}
		}
		if len(open) > 0 {
			return fmt.Errorf("%d pods neither bound nor unschedulable (%s)", len(open), strings.Join(first(open, 5), ", "))
		}
		pods = list.Items
		return nil
	})
	if err != nil {
		t.Fatalf("kube-scheduler has not decided about every pod of %s: %v", ns, err)
	}
	return pods
}

// unschedulable: kube-scheduler found no node for the pod (PodScheduled False, reason Unschedulable).
func unschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
		}
	}
	return false
}

// boundCount counts the bound pods of ns.
func (k *cluster) boundCount(ctx context.Context, ns string) (int, error) {
	list, err := k.c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range list.Items {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n, nil
}

// waitBoundCount waits until at least n pods of ns are bound.
func (k *cluster) waitBoundCount(t *testing.T, ns string, n int, timeout time.Duration) {
	t.Helper()
	err := harness.Eventually(context.Background(), 100*time.Millisecond, timeout, func(ctx context.Context) error {
		bound, err := k.boundCount(ctx, ns)
		if err == nil && bound < n {
			err = fmt.Errorf("%d bound, want %d", bound, n)
		}
		return err
	})
	if err != nil {
		t.Fatalf("pods of %s: %v", ns, err)
	}
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "…")
	}
	return s
}
