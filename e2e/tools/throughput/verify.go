package main

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
)

// plan is the tandem.dev/plan annotation the extender writes on bind.
type plan struct {
	Node string   `json:"node"`
	GPUs []string `json:"gpus"`
	HCAs []string `json:"hcas"`
}

// verify checks what the run bound: no node over its GPU or HCA capacity, and with the extender every
// device pod planned on its node, aligned as its tandem.dev/alignment asks, no device in two plans.
func (b *bench) verify(ctx context.Context, r *result, planned bool) error {
	list, err := b.c.Kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	used := map[string]map[string]int{} // node -> resource -> count
	owner := map[string]string{}        // node/device -> pod
	var problems []string
	for _, p := range list.Items {
		lim := p.Spec.Containers[0].Resources.Limits
		g, h := lim["nvidia.com/gpu"], lim["rdma/hca"]
		if g.Value() == 0 {
			continue
		}
		node := p.Spec.NodeName
		if used[node] == nil {
			used[node] = map[string]int{}
		}
		used[node]["gpu"] += int(g.Value())
		used[node]["hca"] += int(h.Value())
		if _, dra := p.Annotations[shapeAnnotation]; !dra {
			r.pods++ // a DRA pod (dra-ext's ask the resources too) is counted by verifyClaims
		}
		if !planned {
			continue
		}
		var pl plan
		if err := json.Unmarshal([]byte(p.Annotations["tandem.dev/plan"]), &pl); err != nil {
			problems = append(problems, fmt.Sprintf("pod %s on %s: no readable tandem.dev/plan (%v)", p.Name, node, err))
			continue
		}
		if pl.Node != node || len(pl.GPUs) != int(g.Value()) || len(pl.HCAs) != int(h.Value()) {
			problems = append(problems, fmt.Sprintf("pod %s on %s asks %d+%d, plans %d+%d on %s",
				p.Name, node, g.Value(), h.Value(), len(pl.GPUs), len(pl.HCAs), pl.Node))
			continue
		}
		t := b.templateOf(node)
		if t == nil {
			problems = append(problems, fmt.Sprintf("pod %s bound to %s, not a fake node of this run", p.Name, node))
			continue
		}
		policy := p.Annotations["tandem.dev/alignment"]
		ok, _, err := t.topo.Aligned(pl.GPUs, pl.HCAs, harness.PolicyLimit(policy))
		if err != nil {
			return fmt.Errorf("pod %s: %w", p.Name, err)
		}
		if ok {
			r.aligned++
		} else {
			problems = append(problems, fmt.Sprintf("pod %s on %s: plan %v + %v is not aligned as %q asks", p.Name, node, pl.GPUs, pl.HCAs, policy))
		}
		for _, d := range append(append([]string{}, pl.GPUs...), pl.HCAs...) {
			key := node + "/" + d
			if other, taken := owner[key]; taken {
				r.doubleBooked++
				problems = append(problems, fmt.Sprintf("device %s planned for %s and %s", key, other, p.Name))
			}
			owner[key] = p.Name
		}
	}
	dra, err := b.verifyClaims(ctx, r, list.Items)
	if err != nil {
		return err
	}
	problems = append(problems, dra...)
	for node, u := range used {
		t := b.templateOf(node)
		if t != nil && (u["gpu"] > t.GPUs || u["hca"] > t.HCAs) {
			problems = append(problems, fmt.Sprintf("node %s holds %d GPUs and %d HCAs of %d and %d", node, u["gpu"], u["hca"], t.GPUs, t.HCAs))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problems with what was bound, first: %s", len(problems), problems[0])
	}
	return nil
}
