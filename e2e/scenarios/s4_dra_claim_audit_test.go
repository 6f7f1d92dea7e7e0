//go:build e2e && !k8s134

package scenarios

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// claimAuditReason is the Warning Event's reason of the extender's claim audit.
const claimAuditReason = "ClaimUnsatisfiable"

// TestDRAClaimAudit is the extender's claim audit (docs/extender.md, "Claims no node can be given")
// among the real components: the real kube-apiserver and kube-scheduler, kube-controller-manager
// making claims from templates, Tandem's DRA driver publishing an HGX H100's GPUs and HCAs (one of
// each per PCIe switch) in ResourceSlices through the kubelet's DRA manager, the agent's NodeTopology,
// and the extender as leader. A pod whose claim template was written by hand into 4 GPUs and 4 HCAs
// under one tandem.dev/pcieSwitch stays pending and gets a ClaimUnsatisfiable Warning Event naming
// the constraint, the largest group a switch holds and the generated claim that fits; a pod with the
// generator's shipped 2+2 switch template is allocated and prepared, and gets no such Event.
func TestDRAClaimAudit(t *testing.T) {
	const ns = "dra-audit"
	cl.useDRA(t, ns)
	cl.claimTemplate(t, ns, 4) // gpu-hca-4: the hand-written one, 4+4 under one switch
	shipped := cl.env.Path("manifests", "examples", "dra-claims", "claim-templates.yaml")
	if out, err := cl.env.Kubectl(nil, "apply", "--namespace", ns, "-f", shipped); err != nil {
		t.Fatalf("the shipped claim templates: %v\n%s", err, out)
	}
	node := cl.draTreeNode(t, ns, hgxH100)
	topo, gpus, hcas := cl.devicesOf(t, node)
	n := cl.draNode(t, node, gpus, hcas, "")
	kubelet, devs := n.start(t, topo, len(gpus)+len(hcas))

	generated := "tandem-2g2h-switch"
	cl.createClaimPod(t, ns, "generated", node, corev1.PodResourceClaim{Name: draPodClaim, ResourceClaimTemplateName: &generated})
	pod := cl.waitBound(t, ns, "generated", 90*time.Second)
	pairedUnderSwitches(t, pod, 2, devs)
	n.prepareAndCheck(t, kubelet, pod, devs)

	cl.createDraPod(t, ns, "one-switch", node, 4)
	cl.waitUnschedulable(t, ns, "one-switch")
	events := cl.waitEvent(t, ns, "one-switch", carries(claimAuditReason), 90*time.Second)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`Warning ` + claimAuditReason + ` \([^)]*tandem-scheduler-extender[^)]*\): claim one-switch-`),
		regexp.MustCompile(regexp.QuoteMeta("constraint matchAttribute tandem.dev/pcieSwitch on [gpu, hca] asks 4 GPUs and 4 HCAs with one value of tandem.dev/pcieSwitch and no node has that")),
		regexp.MustCompile(regexp.QuoteMeta("`./tandem claim --gpus 4 --hcas 4 --alignment switch` writes that claim")),
	} {
		if !want.MatchString(events) {
			t.Errorf("pod one-switch: no event matches %q; its events:\n%s", want, events)
		}
	}
	closest(t, events)
	t.Logf("pod one-switch pending, with the claim audit's event:\n%s", events)
	if ev := cl.events(ns, "generated"); strings.Contains(ev, claimAuditReason) {
		t.Errorf("pod generated was allocated, yet the audit reported its claim; its events:\n%s", ev)
	}
}

// closest checks that the event names the largest group under one switch, on a named node, and that
// it falls short of 4 GPUs and 4 HCAs. Which node that is depends on the scenarios that ran before in
// the same binary: this node's 1 and 1 alone, a DGX A100's 2 and 2, an SR-IOV node's 2 GPUs and its
// VFs.
func closest(t *testing.T, events string) {
	t.Helper()
	m := regexp.MustCompile(`the most under one value is (\d+) GPUs? and (\d+) HCAs? \([^,]+, tandem\.dev/pcieSwitch=[^)]+\)`).FindStringSubmatch(events)
	if m == nil {
		t.Errorf("pod one-switch: the event names no largest group under one switch; its events:\n%s", events)
		return
	}
	gpus, _ := strconv.Atoi(m[1])
	hcas, _ := strconv.Atoi(m[2])
	if gpus >= 4 && hcas >= 4 {
		t.Errorf("pod one-switch: the event's largest group, %d GPUs and %d HCAs, would satisfy the claim", gpus, hcas)
	}
}

// pairedUnderSwitches checks that the pod's claim is allocated s GPUs and s HCAs of the published
// devices, each GPU with a granted HCA under its switch: Tandem's rule, which the generated claim
// states.
func pairedUnderSwitches(t *testing.T, pod *corev1.Pod, s int, devs map[string]publishedDevice) {
	t.Helper()
	c := claimOf(t, pod)
	if c.Status.Allocation == nil {
		t.Fatalf("pod %s bound but its claim %s is not allocated", pod.Name, c.Name)
	}
	switches := map[string]map[string]int{}
	for _, r := range c.Status.Allocation.Devices.Results {
		d, ok := devs[r.Device]
		if !ok || r.Driver != draDriver || d.tainted {
			t.Fatalf("claim %s: result %+v is not a healthy published device of %s", c.Name, r, draDriver)
		}
		if switches[d.pcieSwitch] == nil {
			switches[d.pcieSwitch] = map[string]int{}
		}
		switches[d.pcieSwitch][d.kind]++
	}
	gpus := 0
	for sw, kinds := range switches {
		gpus += kinds["gpu"]
		if sw == "" || kinds["gpu"] != kinds["hca"] {
			t.Errorf("claim %s: switch %q holds %d GPUs and %d HCAs of it, want as many of each", c.Name, sw, kinds["gpu"], kinds["hca"])
		}
	}
	if gpus != s || len(c.Status.Allocation.Devices.Results) != 2*s {
		t.Errorf("claim %s: %d devices, %d GPUs, want %d GPUs and %d HCAs", c.Name, len(c.Status.Allocation.Devices.Results), gpus, s, s)
	}
	t.Logf("pod %s: claim %s allocated, %d GPU+HCA pairs under switches %v", pod.Name, c.Name, s, switches)
}
