package harness

import (
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// PlanAnnotation is the annotation the extender writes on a pod it binds.
const PlanAnnotation = "tandem.dev/plan"

// Plan is the tandem.dev/plan annotation: the node and the devices the extender chose for the pod.
type Plan struct {
	Node     string   `json:"node"`
	GPUs     []string `json:"gpus"`
	HCAs     []string `json:"hcas"`
	Locality string   `json:"locality"`
	Policy   string   `json:"policy"`
	// Containers is each container's share of the pod's devices, init containers first.
	Containers []Share `json:"containers"`
}

// Share is one container's part of a plan.
type Share struct {
	Name string   `json:"name"`
	Init bool     `json:"init"`
	GPUs []string `json:"gpus"`
	HCAs []string `json:"hcas"`
}

// Share returns the named container's share of the plan (nil when the plan has none).
func (p *Plan) Share(container string) *Share {
	for i := range p.Containers {
		if p.Containers[i].Name == container {
			return &p.Containers[i]
		}
	}
	return nil
}

// PlanOf decodes the pod's plan; nil without error when the pod has none.
func PlanOf(p *corev1.Pod) (*Plan, error) {
	raw, ok := p.Annotations[PlanAnnotation]
	if !ok {
		return nil, nil
	}
	var pl Plan
	if err := json.Unmarshal([]byte(raw), &pl); err != nil {
		return nil, fmt.Errorf("pod %s/%s: %s is not JSON: %v (%s)", p.Namespace, p.Name, PlanAnnotation, err, raw)
	}
	return &pl, nil
}

// Devices lists the plan's GPUs and HCAs.
func (p *Plan) Devices() []string { return append(append([]string{}, p.GPUs...), p.HCAs...) }

// Ledger holds which pod a plan gave each device of each node to, so that every new plan is checked
// against all the plans held: a device given twice is double-booked.
type Ledger struct {
	owner map[string]string   // node/device -> pod
	held  map[string][]string // pod -> node/device keys
}

// NewLedger is an empty ledger.
func NewLedger() *Ledger { return &Ledger{owner: map[string]string{}, held: map[string][]string{}} }

// Add records pod's plan and returns one line per device another pod already holds (sorted).
func (l *Ledger) Add(pod string, p *Plan) []string {
	var clashes []string
	for _, d := range p.Devices() {
		key := p.Node + "/" + d
		if other, taken := l.owner[key]; taken && other != pod {
			clashes = append(clashes, fmt.Sprintf("device %s planned twice: pods %s and %s", key, other, pod))
			continue
		}
		l.owner[key] = pod
		l.held[pod] = append(l.held[pod], key)
	}
	sort.Strings(clashes)
	return clashes
}

// Remove forgets pod's devices (the pod was deleted).
func (l *Ledger) Remove(pod string) {
	for _, key := range l.held[pod] {
		if l.owner[key] == pod {
			delete(l.owner, key)
		}
	}
	delete(l.held, pod)
}

// Pods is how many pods hold devices.
func (l *Ledger) Pods() int { return len(l.held) }

// DeviceAsk is what a pod asks of Tandem: the limits of its GPUs and HCAs, and the alignment
// annotations (an empty alignment or mode is left out, so the extender's default applies).
func DeviceAsk(gpus, hcas int, alignment, mode string) (corev1.ResourceList, map[string]string) {
	limits := corev1.ResourceList{}
	if gpus > 0 {
		limits["nvidia.com/gpu"] = *resource.NewQuantity(int64(gpus), resource.DecimalSI)
	}
	if hcas > 0 {
		limits["rdma/hca"] = *resource.NewQuantity(int64(hcas), resource.DecimalSI)
	}
	ann := map[string]string{}
	if alignment != "" {
		ann["tandem.dev/alignment"] = alignment
	}
	if mode != "" {
		ann["tandem.dev/alignment-mode"] = mode
	}
	return limits, ann
}
