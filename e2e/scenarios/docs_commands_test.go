//go:build e2e

package scenarios

import (
	"encoding/json"
	"strings"
	"testing"
)

// docCommand runs a command of docs/<doc> with the real kubectl (harness.Env.DocCommand) and returns
// its output.
func (k *cluster) docCommand(t *testing.T, doc, template string, args ...string) string {
	t.Helper()
	out, err := k.env.DocCommand(doc, template, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return out
}

// The read and label commands of install.md and operations.md, on the aligned scenario's XE8640
// node and bound pod (docs: node gpu-node-1 or <node>, pod aligned-switch-required or <pod> in the
// default namespace; here the scenario's node, and the pod in namespace "aligned").
func testOperatorDocCommands(t *testing.T, node, pod string) {
	must := func(out, want, what string) {
		t.Helper()
		if !strings.Contains(out, want) {
			t.Errorf("%s: output lacks %q:\n%s", what, want, out)
		}
	}
	out := cl.docCommand(t, "install.md", "kubectl label node gpu-node-1 tandem.dev/rdma=true",
		"label", "node", node, "tandem.dev/rdma=true")
	must(out, "labeled", "label node")
	out = cl.docCommand(t, "install.md", "kubectl get node <node> -o jsonpath='{.status.allocatable}'",
		"get", "node", node, "-o", "jsonpath={.status.allocatable}")
	must(out, "nvidia.com/gpu", "allocatable")
	out = cl.docCommand(t, "install.md", "kubectl get nodetopologies", "get", "nodetopologies")
	for _, col := range []string{"NAME", "GPUS", "HCAS", "SWITCHES", "AGE", node} {
		must(out, col, "get nodetopologies")
	}
	out = cl.docCommand(t, "install.md", "kubectl get nodetopology gpu-node-1 -o yaml",
		"get", "nodetopology", node, "-o", "yaml")
	must(out, "kind: NodeTopology", "get nodetopology -o yaml")
	out = cl.docCommand(t, "install.md",
		`kubectl get pod aligned-switch-required -o jsonpath='{.metadata.annotations.tandem\.dev/plan}'`,
		"-n", "aligned", "get", "pod", pod, "-o", `jsonpath={.metadata.annotations.tandem\.dev/plan}`)
	var pl plan
	if err := json.Unmarshal([]byte(out), &pl); err != nil || pl.Node != node {
		t.Errorf("the plan printed by kubectl is not the pod's plan on %s: %v\n%s", node, err, out)
	}
	out = cl.docCommand(t, "operations.md", "kubectl get pod <pod> -o jsonpath='{.metadata.annotations}'",
		"-n", "aligned", "get", "pod", pod, "-o", "jsonpath={.metadata.annotations}")
	must(out, "tandem.dev/plan", "pod annotations")
	out = cl.docCommand(t, "operations.md", "kubectl describe pod <pod>", "-n", "aligned", "describe", "pod", pod)
	must(out, "Node:", "describe pod")
	cl.docCommand(t, "operations.md", "kubectl get events --field-selector reason=AlignmentNotMet -A",
		"get", "events", "--field-selector", "reason=AlignmentNotMet", "-A")
	out = cl.docCommand(t, "operations.md",
		"kubectl -n tandem-system get lease tandem-scheduler-extender -o jsonpath='{.spec.holderIdentity}'",
		"-n", "tandem-system", "get", "lease", "tandem-scheduler-extender", "-o", "jsonpath={.spec.holderIdentity}")
	if strings.TrimSpace(out) == "" {
		t.Errorf("the extender Lease has no holder; the docs send operators to it to find the leader")
	}
	cl.docCommand(t, "troubleshooting.md", "kubectl -n tandem-system get pods -o wide",
		"-n", "tandem-system", "get", "pods", "-o", "wide")
	out = cl.docCommand(t, "operations.md", "kubectl label node <node> tandem.dev/rdma-",
		"label", "node", node, "tandem.dev/rdma-")
	must(out, "unlabeled", "remove the label")
}
