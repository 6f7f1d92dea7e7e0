package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// NodeTopologies is the resource of the tandem CRD.
var NodeTopologies = schema.GroupVersionResource{Group: "tandem.dev", Version: "v1alpha1", Resource: "nodetopologies"}

// Topology is the part of a NodeTopology object the scenarios check plans against.
type Topology struct {
	Name string
	Spec struct {
		Source  string `json:"source"`
		Summary struct {
			GPUs     int `json:"gpus"`
			HCAs     int `json:"hcas"`
			Switches int `json:"switches"`
		} `json:"summary"`
		Pcie []struct {
			ID     string `json:"id"`
			Kind   string `json:"kind"`
			Parent string `json:"parent"`
		} `json:"pcie"`
		Devices []struct {
			ID       string `json:"id"`
			Kind     string `json:"kind"`
			Parent   string `json:"parent"`
			Switch   string `json:"switch"`
			NumaNode *int   `json:"numaNode"`
			Healthy  bool   `json:"healthy"`
			HCA      *struct {
				Rail *int `json:"rail"`
			} `json:"hca"`
		} `json:"devices"`
	} `json:"spec"`
	Status struct {
		Notes []string `json:"notes"`
	} `json:"status"`
}

// GetTopology reads NodeTopology name from the API server.
func (c *Clients) GetTopology(ctx context.Context, name string) (*Topology, error) {
	u, err := c.Dynamic.Resource(NodeTopologies).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(u.Object)
	if err != nil {
		return nil, err
	}
	t := &Topology{Name: name}
	return t, json.Unmarshal(raw, t)
}

// Rails are the rails of these HCAs of the tree (spec.devices[].hca.rail), ascending; an HCA on no
// rail adds none. An id the tree does not have is an error.
func (t *Topology) Rails(hcas []string) ([]int, error) {
	seen := map[int]bool{}
	var rails []int
	for _, id := range hcas {
		found := false
		for _, d := range t.Spec.Devices {
			if d.ID != id {
				continue
			}
			found = true
			if d.HCA != nil && d.HCA.Rail != nil && !seen[*d.HCA.Rail] {
				seen[*d.HCA.Rail] = true
				rails = append(rails, *d.HCA.Rail)
			}
		}
		if !found {
			return nil, fmt.Errorf("NodeTopology %s has no device %q", t.Name, id)
		}
	}
	sort.Ints(rails)
	return rails, nil
}

// Locality ranks, as nvidia-smi names them (PIX and PXB both mean "meet at a PCIe bridge").
const (
	PXB = iota + 1
	PHB
	NODE
	SYS
)

// LocalityName names a rank.
func LocalityName(r int) string {
	return map[int]string{PXB: "PIX/PXB", PHB: "PHB", NODE: "NODE", SYS: "SYS"}[r]
}

// PolicyLimit is the worst locality a tandem.dev/alignment value allows.
func PolicyLimit(alignment string) int {
	switch alignment {
	case "", "switch":
		return PXB
	case "root-complex":
		return PHB
	case "numa":
		return NODE
	}
	return SYS
}

// Locality of two devices, from the tree the agent published: where their ancestor chains meet.
func (t *Topology) Locality(a, b string) (int, error) {
	chainA, err := t.chain(a)
	if err != nil {
		return 0, err
	}
	chainB, err := t.chain(b)
	if err != nil {
		return 0, err
	}
	kinds := map[string]string{}
	for _, p := range t.Spec.Pcie {
		kinds[p.ID] = p.Kind
	}
	inB := map[string]bool{}
	for _, id := range chainB {
		inB[id] = true
	}
	for _, id := range chainA {
		if !inB[id] {
			continue
		}
		switch kinds[id] {
		case "HOST_BRIDGE":
			return PHB, nil
		case "CPU_DOMAIN":
			return NODE, nil
		default:
			return PXB, nil
		}
	}
	na, nb := t.numa(a), t.numa(b)
	if na != nil && nb != nil && *na == *nb {
		return NODE, nil
	}
	return SYS, nil
}

func (t *Topology) numa(id string) *int {
	for _, d := range t.Spec.Devices {
		if d.ID == id {
			return d.NumaNode
		}
	}
	return nil
}

// chain is the device's ancestors, nearest first.
func (t *Topology) chain(id string) ([]string, error) {
	parents := map[string]string{}
	for _, p := range t.Spec.Pcie {
		parents[p.ID] = p.Parent
	}
	var parent string
	found := false
	for _, d := range t.Spec.Devices {
		if d.ID == id {
			parent, found = d.Parent, true
		}
	}
	if !found {
		return nil, fmt.Errorf("NodeTopology %s has no device %q", t.Name, id)
	}
	var out []string
	for p := parent; p != "" && len(out) < 64; p = parents[p] {
		out = append(out, p)
	}
	return out, nil
}

// Aligned checks a plan against a policy limit: every GPU has a planned HCA within the limit and every
// HCA serves a planned GPU within it. It returns the worst pair locality it relied on.
func (t *Topology) Aligned(gpus, hcas []string, limit int) (bool, int, error) {
	worst := 0
	best := func(id string, others []string) (int, error) {
		b := SYS + 1
		for _, o := range others {
			l, err := t.Locality(id, o)
			if err != nil {
				return 0, err
			}
			if l < b {
				b = l
			}
		}
		return b, nil
	}
	ok := true
	for _, set := range [][2][]string{{gpus, hcas}, {hcas, gpus}} {
		for _, id := range set[0] {
			b, err := best(id, set[1])
			if err != nil {
				return false, 0, err
			}
			if b > limit {
				ok = false
			}
			if b > worst {
				worst = b
			}
		}
	}
	return ok, worst, nil
}
