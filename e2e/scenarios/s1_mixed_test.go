//go:build e2e

package scenarios

import (
	"strings"
	"testing"
	"time"
)

// noTopologyReason is the extender's filter reason for a node without a NodeTopology.
const noTopologyReason = "no NodeTopology for this node, so required GPU+HCA alignment cannot be checked"

// TestMixedClusterPodsOfOneKindLandWithoutTheAgent: a cluster where only some GPU nodes run the agent.
// Pods that ask for GPUs only or HCAs only, and preferred-alignment pods, land on nodes without a
// NodeTopology, unplanned; a pod asking for GPUs and HCAs with required alignment never does.
func TestMixedClusterPodsOfOneKindLandWithoutTheAgent(t *testing.T) {
	cl.use(t, "mixed")
	nodes := cl.group(t, "mixed", relion)            // 2 GPUs + 1 HCA under one switch, with the agent
	rdma := cl.plainNode(t, "mixed", "rdma", 8, 8)   // an RDMA node whose agent is not running
	gpuNode := cl.plainNode(t, "mixed", "gpu", 8, 0) // a plain GPU node
	withAgent := nodes[0]

	// Only the RDMA node without the agent has room for 3 GPUs and an HCA: required alignment
	// cannot be checked there, so the pod stays Pending with the extender's reason.
	cl.submit(t, "mixed", podSpec{name: "gpu3-hca1-required", gpus: 3, hcas: 1})
	ev := cl.waitEvent(t, "mixed", "gpu3-hca1-required", carries(noTopologyReason), 60*time.Second)
	t.Logf("required pod pending with:\n%s", ev)

	// The preferred 3 + 1 pod first: only the RDMA node can hold it, and it must not find that node's
	// GPUs taken by the GPU-only pods, which tie between the two plain nodes (kube-scheduler then
	// picks at random).
	cl.submit(t, "mixed", podSpec{name: "gpu3-hca1-preferred", gpus: 3, hcas: 1, mode: "preferred"})
	cl.waitBound(t, "mixed", "gpu3-hca1-preferred", 60*time.Second)
	cl.submit(t, "mixed",
		podSpec{name: "gpu3-a", gpus: 3}, podSpec{name: "gpu3-b", gpus: 3}, // too big for the agent's node
		podSpec{name: "hca2", hcas: 2}, // only the RDMA node has 2 HCAs
		podSpec{name: "gpu1-hca1-required", gpus: 1, hcas: 1})
	for _, name := range []string{"gpu3-a", "gpu3-b", "hca2", "gpu3-hca1-preferred"} {
		p := cl.waitBound(t, "mixed", name, 60*time.Second)
		if p.Spec.NodeName != rdma && p.Spec.NodeName != gpuNode {
			t.Errorf("pod %s bound to %s; only the nodes without the agent (%s, %s) have room", name, p.Spec.NodeName, rdma, gpuNode)
		}
		for k, v := range p.Annotations {
			if strings.HasPrefix(k, "tandem.dev/plan") {
				t.Errorf("pod %s on %s (no NodeTopology) got a plan: %s", name, p.Spec.NodeName, v)
			}
		}
	}
	p := cl.waitBound(t, "mixed", "gpu1-hca1-required", 60*time.Second)
	if p.Spec.NodeName != withAgent {
		t.Fatalf("required 1 GPU + 1 HCA pod bound to %s; only %s has a NodeTopology", p.Spec.NodeName, withAgent)
	}
	if pl := planOf(t, p); pl == nil || pl.Node != withAgent || len(pl.GPUs) != 1 || len(pl.HCAs) != 1 {
		t.Fatalf("required pod on %s has plan %+v, want 1 GPU and 1 HCA on that node", withAgent, pl)
	}

	// Once kube-scheduler has decided about every pod, the required 3 + 1 pod is still on no node.
	for _, q := range cl.waitDecided(t, "mixed", 30*time.Second) {
		if q.Name == "gpu3-hca1-required" && q.Spec.NodeName != "" {
			t.Fatalf("required 3 GPU + 1 HCA pod bound to %s, a node without a NodeTopology", q.Spec.NodeName)
		}
	}
}
