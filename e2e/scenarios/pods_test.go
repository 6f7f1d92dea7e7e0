//go:build e2e

package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
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
type plan struct {
	Node     string   `json:"node"`
	GPUs     []string `json:"gpus"`
	HCAs     []string `json:"hcas"`
	Locality string   `json:"locality"`
	Policy   string   `json:"policy"`
	// Containers is each container's share of the pod's devices, init containers first.
	Containers []share `json:"containers"`
}

// share is one container's part of a plan.
type share struct {
	Name string   `json:"name"`
	Init bool     `json:"init"`
	GPUs []string `json:"gpus"`
	HCAs []string `json:"hcas"`
}

// share returns the named container's share of the plan (nil when the plan has none).
func (p *plan) share(container string) *share {
	for i := range p.Containers {
		if p.Containers[i].Name == container {
			return &p.Containers[i]
		}
	}
	return nil
}

// podSpec is a pod the scenarios submit: g GPUs and h HCAs, with an optional alignment policy.
type podSpec struct {
	name       string
	gpus, hcas int
	alignment  string // tandem.dev/alignment, "" = the default
	mode       string // tandem.dev/alignment-mode, "" = the default
	priority   string // spec.priorityClassName, "" = none
	node       string // pinned to this node (kubernetes.io/hostname), "" = any of the group
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
		name := fmt.Sprintf("%s-%02d-%s", group, i, strings.SplitN(f.file, "-", 3)[1])
		names = append(names, name)
		if err := k.c.CreateNode(ctx, harness.NodeSpec{Name: name, GPUs: f.gpus, HCAs: f.hcas,
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

// waitTopology waits until the agent of node has published a NodeTopology with the fixture's counts.
func (k *cluster) waitTopology(ctx context.Context, node string, f fixture) error {
	var last error
	for {
		topo, err := k.c.GetTopology(ctx, node)
		if err == nil {
			s := topo.Spec.Summary
			if s.GPUs == f.gpus && s.HCAs == f.hcas {
				return nil
			}
			last = fmt.Errorf("NodeTopology %s says %d GPUs and %d HCAs, the fixture %s has %d and %d",
				node, s.GPUs, s.HCAs, f.file, f.gpus, f.hcas)
		} else {
			last = err
		}
		k.mu.Lock()
		p := k.agents[node]
		k.mu.Unlock()
		if p != nil && !p.Running() {
			return fmt.Errorf("the agent of %s exited before publishing its NodeTopology (%v); see %s", node, last, p.Log)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no NodeTopology for %s: %v", node, last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (k *cluster) pod(group string, s podSpec) *corev1.Pod {
	limits := corev1.ResourceList{}
	if s.gpus > 0 {
		limits["nvidia.com/gpu"] = *resource.NewQuantity(int64(s.gpus), resource.DecimalSI)
	}
	if s.hcas > 0 {
		limits["rdma/hca"] = *resource.NewQuantity(int64(s.hcas), resource.DecimalSI)
	}
	ann := map[string]string{}
	if s.alignment != "" {
		ann["tandem.dev/alignment"] = s.alignment
	}
	if s.mode != "" {
		ann["tandem.dev/alignment-mode"] = s.mode
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
	deadline := time.Now().Add(timeout)
	for {
		p, err := k.c.Kube.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && p.Spec.NodeName != "" {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s/%s not bound within %s; its events:\n%s", ns, name, timeout, k.events(ns, name))
		}
		time.Sleep(200 * time.Millisecond)
	}
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

// planOf decodes the pod's tandem.dev/plan annotation (nil when absent).
func planOf(t *testing.T, p *corev1.Pod) *plan {
	t.Helper()
	raw, ok := p.Annotations["tandem.dev/plan"]
	if !ok {
		return nil
	}
	var pl plan
	if err := json.Unmarshal([]byte(raw), &pl); err != nil {
		t.Fatalf("pod %s/%s: tandem.dev/plan is not JSON: %v (%s)", p.Namespace, p.Name, err, raw)
	}
	return &pl
}

// settle waits until the number of bound pods in ns has not changed for quiet, and returns the pods.
func (k *cluster) settle(t *testing.T, ns string, want int, quiet, timeout time.Duration) []corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last, since := -1, time.Now()
	for {
		list, err := k.c.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bound := 0
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				bound++
			}
		}
		if bound != last {
			last, since = bound, time.Now()
		}
		if (want > 0 && bound >= want && time.Since(since) > 2*time.Second) || time.Since(since) > quiet || time.Now().After(deadline) {
			return list.Items
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// assertNoDoubleBookingQuiet counts the bound pods of ns without checking them.
func (k *cluster) assertNoDoubleBookingQuiet(ns string) int {
	list, err := k.c.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range list.Items {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n
}
