package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"tandem.dev/e2e/internal/harness"
)

// template is the NodeTopology the real agent published for one machine, copied onto every fake
// node of that machine.
type template struct {
	harness.Machine
	obj  *unstructured.Unstructured
	topo *harness.Topology
	// with DRA runs: the ResourceSlices the DRA driver publishes for the machine (on its template
	// node), and their devices by name
	slices  []resourcev1.ResourceSlice
	devices map[string]publishedDevice
}

// publishTemplates runs the real agent once per machine on a template node and keeps what it
// published; the agents stop afterwards (the fake nodes carry copies, as if their agents had run).
func (b *bench) publishTemplates(ctx context.Context) error {
	if b.baseline != nil {
		logf("%s agent publishes the machines' NodeTopology, so that both extenders can read it", b.baseline.label)
	}
	for _, m := range harness.Machines {
		node := "template-" + m.Short()
		if err := b.c.CreateNode(ctx, harness.NodeSpec{Name: node, GPUs: m.GPUs, HCAs: m.HCAs}); err != nil {
			return err
		}
		kc, err := b.agentKubeconfig(ctx, node)
		if err != nil {
			return err
		}
		t, err := b.runAgent(ctx, kc, node, m)
		if err != nil {
			return err
		}
		b.templates = append(b.templates, t)
		b.templateNodes[node] = t
	}
	return nil
}

// agentKubeconfig authenticates the template node's agent as the DaemonSet's pod on that node would:
// the own-node ValidatingAdmissionPolicy refuses a token of the agent's ServiceAccount that is not
// bound to a pod on the node it writes.
func (b *bench) agentKubeconfig(ctx context.Context, node string) (string, error) {
	pod, err := b.c.StandInPod(ctx, "tandem-system", "tandem-node-topology-agent-"+node, "tandem-node-topology-agent", node)
	if err != nil {
		return "", err
	}
	return b.c.PodBoundKubeconfig(ctx, b.env, pod)
}

func (b *bench) runAgent(ctx context.Context, kc, node string, m harness.Machine) (*template, error) {
	agent := b.publisher()
	p, err := harness.Start(b.env.Logs(), "agent-"+node, []string{"KUBECONFIG=" + kc, "NODE_NAME=" + node},
		agent.java, "-Xmx64m", "-XX:+UseSerialGC", "-jar", agent.agentJar, "run",
		"--node-name", node, "--hwloc-xml", b.env.Topology(m.File), "--kubeconfig", kc, "--port", fmt.Sprint(harness.FreePort()))
	if err != nil {
		return nil, err
	}
	defer p.Stop(5 * time.Second)
	var tmpl *template
	err = harness.Eventually(ctx, 250*time.Millisecond, 90*time.Second, func(ctx context.Context) error {
		if !p.Running() {
			return harness.Permanent(fmt.Errorf("the agent exited"))
		}
		topo, err := b.c.GetTopology(ctx, node)
		if err != nil {
			return err
		}
		if topo.Spec.Summary.GPUs != m.GPUs || topo.Spec.Summary.HCAs != m.HCAs {
			return fmt.Errorf("NodeTopology says %d GPUs and %d HCAs", topo.Spec.Summary.GPUs, topo.Spec.Summary.HCAs)
		}
		obj, err := b.c.Dynamic.Resource(harness.NodeTopologies).Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		tmpl = &template{Machine: m, obj: obj, topo: topo}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the agent of %s published no NodeTopology with %d GPUs and %d HCAs: %w; see %s",
			node, m.GPUs, m.HCAs, err, p.Log)
	}
	return tmpl, nil
}

// nodeName is the i-th fake node; its machine is templates[i % len].
func nodeName(i int) string { return fmt.Sprintf("node-%05d", i) }

// inParallel runs f on each item from 16 workers and returns the first error, once all have run.
func inParallel[T any](items []T, f func(T) error) error {
	work := make(chan T)
	errs := make(chan error, len(items))
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				if err := f(it); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	return nil
}

// grow adds fake nodes until the cluster has n, each with the NodeTopology of its machine.
func (b *bench) grow(ctx context.Context, n int) error {
	t0 := time.Now()
	from := b.nodes
	var added []int
	for i := from; i < n; i++ {
		added = append(added, i)
	}
	if err := inParallel(added, func(i int) error { return b.addNode(ctx, i) }); err != nil {
		return err
	}
	b.nodes = n
	logf("%d fake nodes with NodeTopology (%d added in %.0f s)", n, n-from, time.Since(t0).Seconds())
	return nil
}

func (b *bench) addNode(ctx context.Context, i int) error {
	t := b.templates[i%len(b.templates)]
	name := nodeName(i)
	if err := b.c.CreateNode(ctx, harness.NodeSpec{Name: name, GPUs: t.GPUs, HCAs: t.HCAs}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	// No owner reference to the Node: nothing here garbage-collects, and the extender does not read it.
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": t.obj.GetAPIVersion(),
		"kind":       t.obj.GetKind(),
		"metadata":   map[string]any{"name": name},
		"spec":       t.obj.Object["spec"],
	}}
	if b.claims != nil {
		if err := b.createSlices(ctx, t, name); err != nil {
			return err
		}
	}
	res := b.c.Dynamic.Resource(harness.NodeTopologies)
	created, err := res.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create NodeTopology %s: %w", name, err)
	}
	if status, ok := t.obj.Object["status"]; ok {
		created.Object["status"] = status
		if _, err := res.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("set status of NodeTopology %s: %w", name, err)
		}
	}
	return nil
}

// templateOf is the machine of a node of the cluster (a template node or a fake node), nil for others.
func (b *bench) templateOf(node string) *template {
	if t, ok := b.templateNodes[node]; ok {
		return t
	}
	var i int
	if _, err := fmt.Sscanf(node, "node-%d", &i); err != nil {
		return nil
	}
	return b.templates[i%len(b.templates)]
}
