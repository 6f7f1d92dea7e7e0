package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// The DRA runs: pods whose GPUs and HCAs come from a ResourceClaim of their own (created with the pod,
// named after it; in dra-ext written by kube-scheduler, extended.go), allocated by kube-scheduler's DRA plugin from the ResourceSlices Tandem's DRA
// driver publishes in joint mode on each fake node; no extender.
const (
	// runDRARoot: the claim upstream drivers recommend, N GPUs and N HCAs under one matchAttribute.
	runDRARoot = "dra-root"
	// runDRAGen: the claim Tandem's generator writes for the pod's shape and policy (`tandem claim`).
	runDRAGen = "dra-gen"
)

const (
	draDriver   = "tandem.dev"
	draPodClaim = "devices"
	// shapeAnnotation carries a DRA pod's GPUs+HCAs, which it does not ask as extended resources.
	shapeAnnotation = "throughput.tandem.dev/devices"
)

func isDRA(run string) bool { return run == runDRARoot || run == runDRAGen || run == runDRAExt }

// localityAttribute is the published attribute whose equal values mean a policy's locality: Tandem's
// own group (as tandem-api's ClaimGenerator.attribute says).
func localityAttribute(alignment string) string {
	switch alignment {
	case "", "switch":
		return "tandem.dev/pcieSwitch"
	case "root-complex":
		return "tandem.dev/rootComplex"
	case "numa":
		return "tandem.dev/cpuDomain"
	}
	return ""
}

// standardAttribute is the standard attribute upstream drivers' claims name for a locality.
func standardAttribute(alignment string) string {
	if alignment == "numa" {
		return "resource.kubernetes.io/numaNode"
	}
	return "resource.kubernetes.io/pcieRoot"
}

// draClaims holds the claim spec of each shape of the mix for each DRA run.
type draClaims map[string]map[shape]resourcev1.ResourceClaimSpec

// installDRA applies the DeviceClasses as manifests/ ships them, reads each machine's ResourceSlices
// from the DRA driver's jar, puts them on the template nodes, and prepares each run's claims.
func (b *bench) installDRA(ctx context.Context) error {
	for _, f := range []string{"overlays/dra/deviceclass-tandem-hca.yaml", "overlays/dra-joint/deviceclass-tandem-gpu.yaml"} {
		if _, err := b.env.Kubectl(nil, "apply", "--server-side", "--field-manager=tandem-throughput", "-f", b.env.Path("manifests", f)); err != nil {
			return err
		}
	}
	for _, t := range b.templates {
		node := "template-" + t.Short()
		out, err := exec.CommandContext(ctx, b.env.Java, "-Xmx128m", "-XX:+UseSerialGC", "-jar", b.env.Jar("dra-driver"),
			"slices", "--node-name", node, "--hwloc-xml", b.env.Topology(t.File), "--joint").Output()
		if err != nil {
			return fmt.Errorf("dra-driver.jar slices for %s (%s): %w%s", node, t.File, err, stderrOf(err))
		}
		var list resourcev1.ResourceSliceList
		if err := json.Unmarshal(out, &list); err != nil {
			return fmt.Errorf("dra-driver.jar slices for %s: %w", node, err)
		}
		t.slices = list.Items
		t.devices = publishedDevices(list.Items)
		if err := b.createSlices(ctx, t, node); err != nil {
			return err
		}
	}
	b.claims = draClaims{runDRARoot: {}, runDRAGen: {}}
	for _, s := range mix {
		if _, done := b.claims[runDRAGen][s]; done {
			continue
		}
		b.claims[runDRARoot][s] = rootClaim(s)
		gen, err := b.generatedClaim(ctx, s)
		if err != nil {
			return err
		}
		b.claims[runDRAGen][s] = gen
	}
	return nil
}

// rootClaim is the claim upstream DRA drivers recommend: N GPUs and N HCAs, all on one PCIe root
// complex. A shape whose policy is looser than the root complex (the mix's 4+4 numa) gets one
// matchAttribute on its own locality instead: no machine has four GPU+HCA pairs on one root.
func rootClaim(s shape) resourcev1.ResourceClaimSpec {
	req := func(kind string, n int) resourcev1.DeviceRequest {
		return resourcev1.DeviceRequest{Name: kind, Exactly: &resourcev1.ExactDeviceRequest{
			DeviceClassName: "tandem-" + kind, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: int64(n)}}
	}
	key := resourcev1.FullyQualifiedName(standardAttribute(s.alignment))
	return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
		Requests:    []resourcev1.DeviceRequest{req("gpu", s.gpus), req("hca", s.hcas)},
		Constraints: []resourcev1.DeviceConstraint{{Requests: []string{"gpu", "hca"}, MatchAttribute: &key}},
	}}
}

// generatedClaim is what `tandem claim` (placement-simulator.jar claim) prints for the shape.
func (b *bench) generatedClaim(ctx context.Context, s shape) (resourcev1.ResourceClaimSpec, error) {
	alignment := s.alignment
	if alignment == "" {
		alignment = "switch"
	}
	out, err := exec.CommandContext(ctx, b.env.Java, "-Xmx128m", "-XX:+UseSerialGC", "-jar", b.env.Jar("placement-simulator"),
		"claim", "--gpus", fmt.Sprint(s.gpus), "--hcas", fmt.Sprint(s.hcas), "--alignment", alignment).Output()
	if err != nil {
		return resourcev1.ResourceClaimSpec{}, fmt.Errorf("tandem claim for %d+%d %s: %w%s", s.gpus, s.hcas, alignment, err, stderrOf(err))
	}
	var tmpl resourcev1.ResourceClaimTemplate
	if err := yaml.Unmarshal(out, &tmpl); err != nil {
		return resourcev1.ResourceClaimSpec{}, fmt.Errorf("tandem claim for %d+%d %s: %w", s.gpus, s.hcas, alignment, err)
	}
	return tmpl.Spec.Spec, nil
}

func stderrOf(err error) string {
	if e, ok := err.(*exec.ExitError); ok && len(e.Stderr) > 0 {
		return ": " + strings.TrimSpace(string(e.Stderr))
	}
	return ""
}

// publishedDevice is what verification reads of a published device: its kind and attributes.
type publishedDevice struct {
	kind       string
	attributes map[string]string
	tainted    bool
}

// publishedDevices indexes a machine's slices by device name; attribute names fully qualified.
func publishedDevices(slices []resourcev1.ResourceSlice) map[string]publishedDevice {
	out := map[string]publishedDevice{}
	for _, s := range slices {
		for _, d := range s.Spec.Devices {
			p := publishedDevice{attributes: map[string]string{}, tainted: len(d.Taints) > 0}
			for name, a := range d.Attributes {
				key := string(name)
				if !strings.Contains(key, "/") {
					key = s.Spec.Driver + "/" + key
				}
				switch {
				case a.StringValue != nil:
					p.attributes[key] = *a.StringValue
				case a.IntValue != nil:
					p.attributes[key] = fmt.Sprint(*a.IntValue)
				case a.BoolValue != nil:
					p.attributes[key] = fmt.Sprint(*a.BoolValue)
				case a.VersionValue != nil:
					p.attributes[key] = *a.VersionValue
				}
			}
			p.kind = p.attributes["tandem.dev/kind"]
			out[d.Name] = p
		}
	}
	return out
}

// createSlices gives a node its machine's slices: the driver's pool named after the node, on it.
func (b *bench) createSlices(ctx context.Context, t *template, node string) error {
	prefix := "template-" + t.Short() + "-"
	for _, s := range t.slices {
		c := s.DeepCopy()
		c.ObjectMeta = metav1.ObjectMeta{Name: node + "-" + strings.TrimPrefix(s.Name, prefix), Annotations: s.Annotations}
		c.Spec.NodeName = &node
		c.Spec.Pool.Name = node
		if _, err := b.c.Kube.ResourceV1().ResourceSlices().Create(ctx, c, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create ResourceSlice %s: %w", c.Name, err)
		}
	}
	return nil
}

// draPod turns a device pod into one of a DRA run: no extended resources, its claim instead.
func draPod(p *corev1.Pod, s shape) {
	c := &p.Spec.Containers[0]
	delete(c.Resources.Limits, "nvidia.com/gpu")
	delete(c.Resources.Limits, "rdma/hca")
	c.Resources.Claims = []corev1.ResourceClaim{{Name: draPodClaim}}
	name := p.Name
	p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: draPodClaim, ResourceClaimName: &name}}
	p.Annotations[shapeAnnotation] = fmt.Sprintf("%d+%d", s.gpus, s.hcas)
}

// claimFor is a DRA pod's ResourceClaim, named after it.
func (b *bench) claimFor(run string, p *corev1.Pod, s shape) *resourcev1.ResourceClaim {
	spec := b.claims[run][s]
	return &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: namespace}, Spec: *spec.DeepCopy()}
}

// clearClaims deletes the previous run's claims. Nothing here deallocates them (that is
// kube-controller-manager's, which does not run): their finalizer is dropped instead, which frees
// their devices for the next run's fresh kube-scheduler.
func (b *bench) clearClaims(ctx context.Context) error {
	claims := b.c.Kube.ResourceV1().ResourceClaims(namespace)
	list, err := claims.List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list the previous run's claims: %w", err)
	}
	return inParallel(list.Items, func(c resourcev1.ResourceClaim) error {
		_, err := claims.Patch(ctx, c.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err == nil || apierrors.IsNotFound(err) {
			err = claims.Delete(ctx, c.Name, metav1.DeleteOptions{})
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete claim %s: %w", c.Name, err)
		}
		return nil
	})
}

// verifyClaims checks a DRA run: each device pod's claim allocated on its node with exactly its
// GPUs and HCAs, from devices its node publishes untainted, none in two claims; a pod is aligned
// when each of its GPUs has an HCA of its claim of equal locality attribute (its policy's: the PCIe
// switch, or the NUMA node for the mix's 4+4) and each HCA such a GPU.
func (b *bench) verifyClaims(ctx context.Context, r *result, pods []corev1.Pod) ([]string, error) {
	list, err := b.c.Kube.ResourceV1().ResourceClaims(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	claims := map[string]*resourcev1.ResourceClaim{}
	for i := range list.Items {
		claims[list.Items[i].Name] = &list.Items[i]
	}
	owner := map[string]string{} // pool/device -> pod
	var problems []string
	for _, p := range pods {
		want, ok := p.Annotations[shapeAnnotation]
		if !ok || p.Spec.NodeName == "" {
			continue // not a DRA pod, or left unschedulable
		}
		r.pods++
		node := p.Spec.NodeName
		c := claims[claimName(&p)]
		if c == nil || c.Status.Allocation == nil {
			problems = append(problems, fmt.Sprintf("pod %s bound to %s, its claim not allocated", p.Name, node))
			continue
		}
		t := b.templateOf(node)
		if t == nil {
			problems = append(problems, fmt.Sprintf("pod %s bound to %s, not a node of this run", p.Name, node))
			continue
		}
		byKind := map[string][]publishedDevice{}
		for _, res := range c.Status.Allocation.Devices.Results {
			d, published := t.devices[res.Device]
			if res.Driver != draDriver || res.Pool != node || !published || d.tainted {
				problems = append(problems, fmt.Sprintf("pod %s on %s: claim result %s/%s/%s is no untainted device the node publishes", p.Name, node, res.Driver, res.Pool, res.Device))
				continue
			}
			byKind[d.kind] = append(byKind[d.kind], d)
			key := res.Pool + "/" + res.Device
			if other, taken := owner[key]; taken {
				r.doubleBooked++
				problems = append(problems, fmt.Sprintf("device %s allocated to %s and %s", key, other, p.Name))
			}
			owner[key] = p.Name
		}
		if got := fmt.Sprintf("%d+%d", len(byKind["gpu"]), len(byKind["hca"])); got != want {
			problems = append(problems, fmt.Sprintf("pod %s on %s asks %s, its claim holds %s", p.Name, node, want, got))
			continue
		}
		attr := localityAttribute(p.Annotations["tandem.dev/alignment"])
		if paired(byKind["gpu"], byKind["hca"], attr) && paired(byKind["hca"], byKind["gpu"], attr) {
			r.aligned++
		}
	}
	return problems, nil
}

// paired says whether each device of from has one of to with the same (present) attribute value.
func paired(from, to []publishedDevice, attr string) bool {
	for _, a := range from {
		v, ok := a.attributes[attr]
		found := false
		for _, b := range to {
			found = found || (ok && b.attributes[attr] == v)
		}
		if !found {
			return false
		}
	}
	return true
}

// claimShapes describes a run's claims for the report: requests, alternatives and constraints.
func (c draClaims) describe(run string) string {
	var parts []string
	for s, spec := range c[run] {
		alts := 0
		for _, r := range spec.Devices.Requests {
			alts += max(1, len(r.FirstAvailable))
		}
		parts = append(parts, fmt.Sprintf("%d+%d %s: %d requests, %d alternatives, %d constraints",
			s.gpus, s.hcas, orSwitch(s.alignment), len(spec.Devices.Requests), alts, len(spec.Devices.Constraints)))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

func orSwitch(alignment string) string {
	if alignment == "" {
		return "switch"
	}
	return alignment
}
