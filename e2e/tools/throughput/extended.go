package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The dra-ext run (KEP-5004): device pods keep asking nvidia.com/gpu and rdma/hca as extended
// resources; Tandem's DeviceClasses name them in spec.extendedResourceName and the nodes advertise
// neither, so kube-scheduler's DRA plugin writes each pod a claim of its own (one exactly request per
// name, no constraints) and allocates it from Tandem's slices. Only for the run: otherwise runs a, b,
// c and f would see the nodes' device-plugin capacity served through DRA, or pay for the mapping.
//
// DRAExtendedResource (kube-apiserver, kube-scheduler) is GA and locked on in 1.37, beta and on in
// 1.36, alpha and off in 1.34 and 1.35 (kubernetes/kubernetes pkg/features/kube_features.go):
// nothing to set on 1.36 and later; on earlier releases kube-apiserver drops the class field, which
// serveThroughDRA reports.
const runDRAExt = "dra-ext"

// extendedResourceClasses maps each extended resource to the DeviceClass that serves it in dra-ext.
var extendedResourceClasses = map[string]string{"nvidia.com/gpu": "tandem-gpu", "rdma/hca": "tandem-hca"}

// extPod marks a device pod of the dra-ext run: its extended resources stay, verification reads its
// shape from the annotation and its devices from the claim kube-scheduler writes.
func extPod(p *corev1.Pod, s shape) {
	p.Annotations[shapeAnnotation] = fmt.Sprintf("%d+%d", s.gpus, s.hcas)
}

// serveThroughDRA switches the cluster to (on) or back from the dra-ext set-up: the classes' names,
// and every node's GPUs and HCAs taken out of (or put back into) its capacity and allocatable.
func (b *bench) serveThroughDRA(ctx context.Context, on bool) error {
	for name, class := range extendedResourceClasses {
		value := "null"
		if on {
			value = fmt.Sprintf("%q", name)
		}
		patch := fmt.Sprintf(`{"spec":{"extendedResourceName":%s}}`, value)
		got, err := b.c.Kube.ResourceV1().DeviceClasses().Patch(ctx, class, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		if err != nil {
			return fmt.Errorf("DeviceClass %s: set extendedResourceName %s: %w", class, value, err)
		}
		if on && got.Spec.ExtendedResourceName == nil {
			return fmt.Errorf("DeviceClass %s: kube-apiserver dropped spec.extendedResourceName: its DRAExtendedResource feature gate is off (alpha in Kubernetes 1.34 and 1.35); run dra-ext on 1.36 or later", class)
		}
	}
	nodes, err := b.c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list nodes: %w", err)
	}
	return inParallel(nodes.Items, func(n corev1.Node) error {
		t := b.templateOf(n.Name)
		if t == nil {
			return nil
		}
		gpus, hcas := "null", "null"
		if !on {
			gpus, hcas = fmt.Sprintf(`"%d"`, t.GPUs), fmt.Sprintf(`"%d"`, t.HCAs)
		}
		res := fmt.Sprintf(`{"nvidia.com/gpu":%s,"rdma/hca":%s}`, gpus, hcas)
		patch := fmt.Sprintf(`{"status":{"capacity":%s,"allocatable":%s}}`, res, res)
		if _, err := b.c.Kube.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("node %s: set nvidia.com/gpu and rdma/hca to %s, %s: %w", n.Name, gpus, hcas, err)
		}
		return nil
	})
}

// runExt is run dra-ext: the cluster switched to extended resources through DRA for it, and back.
func (b *bench) runExt(ctx context.Context, run, label string, nodes, podCount int) (result, error) {
	if err := b.serveThroughDRA(ctx, true); err != nil {
		return result{}, err
	}
	res, err := b.run(ctx, run, label, nodes, podCount)
	if back := b.serveThroughDRA(ctx, false); err == nil {
		err = back
	}
	return res, err
}

// claimName is the ResourceClaim that holds a DRA pod's devices: its own, named after it, or in
// dra-ext the one kube-scheduler wrote for it (pod.status.extendedResourceClaimStatus).
func claimName(p *corev1.Pod) string {
	if s := p.Status.ExtendedResourceClaimStatus; s != nil {
		return s.ResourceClaimName
	}
	return p.Name
}
