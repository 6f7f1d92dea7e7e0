// Command golden-gen writes the golden extender requests under ../resources/golden exactly as
// kube-scheduler encodes them: the real k8s.io/api and k8s.io/kube-scheduler/extender/v1 types,
// marshalled with encoding/json (Go field names as keys, null for nil, \u003c-style escapes).
//
// Run: cd scheduler-extender/src/test/golden-gen && go run . ../resources/golden
package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

var nodeNames = []string{"pix-node", "split-node", "gpu-only", "unknown-node"}

func devices(gpu, hca string) v1.ResourceList {
	l := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("4"),
		v1.ResourceMemory: resource.MustParse("16Gi"),
	}
	if gpu != "" {
		l["nvidia.com/gpu"] = resource.MustParse(gpu)
	}
	if hca != "" {
		l["rdma/hca"] = resource.MustParse(hca)
	}
	return l
}

func container(name string, requests, limits v1.ResourceList) v1.Container {
	return v1.Container{
		Name:                     name,
		Image:                    "nvcr.io/nvidia/pytorch:24.05-py3",
		Resources:                v1.ResourceRequirements{Requests: requests, Limits: limits},
		TerminationMessagePath:   "/dev/termination-log",
		TerminationMessagePolicy: v1.TerminationMessageReadFile,
		ImagePullPolicy:          v1.PullIfNotPresent,
	}
}

func pod(name, uid string, annotations map[string]string, init []v1.Container, containers []v1.Container) *v1.Pod {
	grace := int64(30)
	prio := int32(0)
	links := true
	preempt := v1.PreemptLowerPriority
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         "ml",
			UID:               types.UID(uid),
			ResourceVersion:   "48211",
			CreationTimestamp: metav1.Date(2026, 11, 22, 2, 59, 1, 0, time.UTC),
			Labels:            map[string]string{"app": "trainer"},
			Annotations:       annotations,
		},
		Spec: v1.PodSpec{
			InitContainers:                init,
			Containers:                    containers,
			RestartPolicy:                 v1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: &grace,
			DNSPolicy:                     v1.DNSClusterFirst,
			ServiceAccountName:            "default",
			DeprecatedServiceAccount:      "default",
			SecurityContext:               &v1.PodSecurityContext{},
			SchedulerName:                 "tandem-scheduler",
			Tolerations: []v1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: v1.TolerationOpExists,
				Effect: v1.TaintEffectNoExecute, TolerationSeconds: &[]int64{300}[0]}},
			Priority:           &prio,
			EnableServiceLinks: &links,
			PreemptionPolicy:   &preempt,
		},
		Status: v1.PodStatus{Phase: v1.PodPending, QOSClass: v1.PodQOSBurstable},
	}
}

func pairPod(annotations map[string]string) *v1.Pod {
	return pod("trainer-0", "6f1c2a4e-0b1d-4f5e-9a7c-3d2e1f0a9b8c", annotations, nil,
		[]v1.Container{container("main", devices("2", "2"), devices("2", "2"))})
}

func node(name string) v1.Node {
	return v1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			UID:               types.UID("node-uid-" + name),
			ResourceVersion:   "1200",
			CreationTimestamp: metav1.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
			Labels:            map[string]string{"kubernetes.io/hostname": name, "tandem.dev/agent": "true"},
		},
		Spec: v1.NodeSpec{PodCIDR: "10.244.1.0/24", PodCIDRs: []string{"10.244.1.0/24"}},
		Status: v1.NodeStatus{
			Capacity:    v1.ResourceList{"nvidia.com/gpu": resource.MustParse("4"), "rdma/hca": resource.MustParse("4")},
			Allocatable: v1.ResourceList{"nvidia.com/gpu": resource.MustParse("4"), "rdma/hca": resource.MustParse("4")},
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue,
				Reason: "KubeletReady", Message: "kubelet is posting ready status <ok> & healthy"}},
			Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.0.11"}},
			NodeInfo:  v1.NodeSystemInfo{KubeletVersion: "v1.33.1", OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
}

func claimPod() *v1.Pod {
	template := "trainer-4x4"
	p := pod("trainer-dra", "b7c6d5e4-2222-4333-8444-a55566667777", nil, nil,
		[]v1.Container{container("main", devices("", ""), nil)})
	p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "devices", ResourceClaimTemplateName: &template}}
	p.Spec.Containers[0].Resources.Claims = []v1.ResourceClaim{{Name: "devices"}}
	return p
}

func byNames(p *v1.Pod) extenderv1.ExtenderArgs {
	names := append([]string(nil), nodeNames...)
	return extenderv1.ExtenderArgs{Pod: p, NodeNames: &names}
}

func byNodes(p *v1.Pod) extenderv1.ExtenderArgs {
	list := &v1.NodeList{}
	for _, n := range nodeNames {
		list.Items = append(list.Items, node(n))
	}
	return extenderv1.ExtenderArgs{Pod: p, Nodes: list}
}

// Victims of a preemption on the golden nodes: four 1 GPU + 1 HCA pods per node, UIDs
// victim-<node>-<n>, as the extender's tests hold them.
func victimUID(node string, n int) string {
	return "victim-" + node + "-" + string(rune('0'+n))
}

func metaVictims(pdb int64, node string, ns ...int) *extenderv1.MetaVictims {
	v := &extenderv1.MetaVictims{Pods: []*extenderv1.MetaPod{}, NumPDBViolations: pdb}
	for _, n := range ns {
		v.Pods = append(v.Pods, &extenderv1.MetaPod{UID: victimUID(node, n)})
	}
	return v
}

func victimPod(node string, n int, onNode string, priority int32) *v1.Pod {
	p := pod("victim-"+string(rune('0'+n)), victimUID(node, n), nil, nil,
		[]v1.Container{container("main", devices("1", "1"), devices("1", "1"))})
	p.Spec.NodeName = onNode
	p.Spec.Priority = &priority
	p.Spec.PriorityClassName = "batch-low"
	p.Status.Phase = v1.PodRunning
	return p
}

func write(dir, name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		panic(err)
	}
}

func main() {
	dir := os.Args[1]
	annotated := map[string]string{
		"tandem.dev/alignment": "switch",
		"description":          "2 GPUs & 2 HCAs <one switch>",
	}
	write(dir, "filter-names.json", byNames(pairPod(annotated)))
	write(dir, "filter-nodes.json", byNodes(pairPod(annotated)))
	write(dir, "prioritize-names.json", byNames(pairPod(annotated)))
	write(dir, "prioritize-nodes.json", byNodes(pairPod(annotated)))
	write(dir, "filter-preferred-names.json", byNames(pairPod(map[string]string{
		"tandem.dev/alignment": "switch", "tandem.dev/alignment-mode": "preferred"})))
	write(dir, "filter-bad-policy-names.json", byNames(pairPod(map[string]string{
		"tandem.dev/alignment": "rack"})))
	write(dir, "filter-plain-names.json", byNames(pod("web-0", "0d9e1c7b-5a43-4e61-8f0b-2a6c9d3e4f51", nil, nil,
		[]v1.Container{container("web", devices("", ""), nil)})))
	// a pod whose devices come only from a DRA claim: no nvidia.com/gpu, no rdma/hca
	write(dir, "filter-claims-names.json", byNames(claimPod()))
	always := v1.ContainerRestartPolicyAlways
	sidecar := container("log-shipper", nil, v1.ResourceList{"rdma/hca": resource.MustParse("1")})
	sidecar.RestartPolicy = &always
	write(dir, "filter-sidecar-names.json", byNames(pod("trainer-sidecar", "a4b3c2d1-1111-4222-8333-944455556666", nil,
		[]v1.Container{sidecar, container("warmup", nil, v1.ResourceList{"nvidia.com/gpu": resource.MustParse("2")})},
		[]v1.Container{container("main", nil, v1.ResourceList{"nvidia.com/gpu": resource.MustParse("1"),
			"rdma/hca": resource.MustParse("1")})})))
	write(dir, "bind.json", extenderv1.ExtenderBindingArgs{PodName: "trainer-0", PodNamespace: "ml",
		PodUID: types.UID("6f1c2a4e-0b1d-4f5e-9a7c-3d2e1f0a9b8c"), Node: "pix-node"})
	preemptor := pairPod(annotated)
	high := int32(1000)
	preemptor.Spec.Priority = &high
	preemptor.Spec.PriorityClassName = "train-high"
	write(dir, "preempt-meta.json", extenderv1.ExtenderPreemptionArgs{Pod: preemptor,
		NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{
			"pix-node":   metaVictims(1, "pix-node", 0, 1, 2),
			"split-node": metaVictims(0, "split-node", 0, 1),
			"gpu-only":   metaVictims(0, "gpu-only", 0),
		}})
	write(dir, "preempt-nodes.json", extenderv1.ExtenderPreemptionArgs{Pod: preemptor,
		NodeNameToVictims: map[string]*extenderv1.Victims{
			"pix-node": {Pods: []*v1.Pod{victimPod("pix-node", 0, "pix-node", 10),
				victimPod("pix-node", 1, "pix-node", 5), victimPod("pix-node", 2, "pix-node", 1)}, NumPDBViolations: 0},
		}})
	write(dir, "preempt-plain.json", extenderv1.ExtenderPreemptionArgs{
		Pod: pod("web-0", "0d9e1c7b-5a43-4e61-8f0b-2a6c9d3e4f51", nil, nil,
			[]v1.Container{container("web", devices("", ""), nil)}),
		NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{"pix-node": metaVictims(0, "pix-node", 3)}})
	// bad input: kube-scheduler never sends these, but they must get a 400 naming the problem
	write(dir, "preempt-no-maps.json", extenderv1.ExtenderPreemptionArgs{Pod: preemptor})
	write(dir, "preempt-unknown-node.json", extenderv1.ExtenderPreemptionArgs{Pod: preemptor,
		NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{"unknown-node": metaVictims(0, "unknown-node", 0)}})
	write(dir, "preempt-victim-elsewhere.json", extenderv1.ExtenderPreemptionArgs{Pod: preemptor,
		NodeNameToVictims: map[string]*extenderv1.Victims{
			"pix-node": {Pods: []*v1.Pod{victimPod("split-node", 0, "split-node", 1)}},
		}})
}
