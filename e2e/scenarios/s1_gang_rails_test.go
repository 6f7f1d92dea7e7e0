//go:build e2e && !k8s134

package scenarios

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"tandem.dev/e2e/internal/harness"
)

// TestGangSharesRails: four HGX H100 nodes (8 GPU+HCA switches each; rails 0–7 by PCI order), each
// already partly used by other pods on rails that differ from node to node. Four 4 GPU + 4 HCA
// pods placed one by one each take what their node has first, on differing rails; the same four as
// one gang (tandem.dev/gang) all get one rail set, the one every node still has. Kubernetes
// 1.37 only for its sysfs tree nodes (treeNode), which the rails need nothing else of.
func TestGangSharesRails(t *testing.T) {
	const ns = "gang"
	cl.use(t, ns)
	var nodes []string
	for i := 0; i < 4; i++ {
		nodes = append(nodes, cl.treeNode(t, ns, fmt.Sprintf("%s-%02d-hgx", ns, i), hgxH100))
	}
	freeHcas := occupy(t, ns, nodes)

	solo := cl.placeFour(t, ns, "solo", nil)
	if sameRails(solo) {
		t.Fatalf("without a gang the four pods got one rail set %v; the set-up meant to make them differ (free HCAs per node %v)", solo, freeHcas)
	}
	t.Logf("placed one by one, the four pods are on rails %v", solo)
	for i := range solo {
		cl.forceDelete(t, ns, fmt.Sprintf("solo-%d", i))
	}
	for i, n := range nodes {
		waitExtenderHcasFree(t, n, freeHcas[i], time.Minute)
	}

	gang := cl.placeFour(t, ns, "member", map[string]string{"tandem.dev/gang": "job-a", "tandem.dev/rail-alignment": "required"})
	if !sameRails(gang) {
		t.Fatalf("the members of gang job-a are on rails %v; one gang must share one rail set", gang)
	}
	t.Logf("as gang job-a, the four pods are on rails %v", gang)

	// No node has the gang's rails free any more: a fifth member stays pending, and says why.
	rails := strings.ReplaceAll(fmt.Sprint(gang[0]), " ", ", ")
	cl.submit(t, ns, podSpec{name: "member-4", gpus: 4, hcas: 4,
		annotate: map[string]string{"tandem.dev/gang": "job-a", "tandem.dev/rail-alignment": "required"}})
	ev := cl.waitEvent(t, ns, "member-4", func(ev string) bool {
		return strings.Contains(ev, "FailedScheduling") && strings.Contains(ev, "gang gang/job-a is on rails "+rails)
	}, 60*time.Second)
	t.Logf("the fifth member pends with:\n%s", ev)
	cl.assertNoDoubleBooking(t, ns)
}

// occupy binds the pods that leave the four nodes used on differing rails: node 0 a 4+4 pod, node 1
// a 2+2 pod, node 3 the second of two 2+2 pods (the first one deleted); node 2 stays empty. It
// returns each node's free HCAs, once the extender counts them.
func occupy(t *testing.T, ns string, nodes []string) []int {
	t.Helper()
	fill := []podSpec{
		{name: "fill-0", gpus: 4, hcas: 4, node: nodes[0]},
		{name: "fill-1", gpus: 2, hcas: 2, node: nodes[1]},
		{name: "fill-3a", gpus: 2, hcas: 2, node: nodes[3]},
		{name: "fill-3b", gpus: 2, hcas: 2, node: nodes[3]},
	}
	for _, s := range fill {
		cl.submit(t, ns, s)
		cl.waitBound(t, ns, s.name, 60*time.Second)
	}
	cl.forceDelete(t, ns, "fill-3a")
	free := []int{4, 6, 8, 6}
	for i, n := range nodes {
		waitExtenderHcasFree(t, n, free[i], time.Minute)
	}
	return free
}

// placeFour submits four 4 GPU + 4 HCA pods named prefix-0…3 with the annotations, waits until all
// are bound, and returns each one's rails (from its plan and its node's NodeTopology).
func (k *cluster) placeFour(t *testing.T, ns, prefix string, annotate map[string]string) [][]int {
	t.Helper()
	var specs []podSpec
	for i := 0; i < 4; i++ {
		specs = append(specs, podSpec{name: fmt.Sprintf("%s-%d", prefix, i), gpus: 4, hcas: 4, annotate: annotate})
	}
	k.submit(t, ns, specs...)
	var rails [][]int
	for _, s := range specs {
		p := k.waitBound(t, ns, s.name, 2*time.Minute)
		pl := planOf(t, p)
		if pl == nil {
			t.Fatalf("pod %s bound to %s without a plan", s.name, p.Spec.NodeName)
		}
		k.assertAligned(t, p, pl, harness.PXB)
		topo, err := k.c.GetTopology(context.Background(), p.Spec.NodeName)
		if err != nil {
			t.Fatal(err)
		}
		r, err := topo.Rails(pl.HCAs)
		if err != nil {
			t.Fatal(err)
		}
		if len(r) != 4 {
			t.Fatalf("pod %s on %s: its HCAs %v are on rails %v; each HGX H100 HCA has a rail of its own", s.name, p.Spec.NodeName, pl.HCAs, r)
		}
		rails = append(rails, r)
	}
	return rails
}

func sameRails(rails [][]int) bool {
	for _, r := range rails[1:] {
		if !reflect.DeepEqual(r, rails[0]) {
			return false
		}
	}
	return true
}

// waitExtenderHcasFree waits until the extender counts n of the node's HCA units free.
func waitExtenderHcasFree(t *testing.T, node string, n int, within time.Duration) {
	t.Helper()
	eventually(t, within, fmt.Sprintf("the extender counts %d HCAs of %s free", n, node), func(context.Context) error {
		if free, _ := cl.extenderHcas(t, node); free != n {
			return fmt.Errorf("%d free", free)
		}
		return nil
	})
}
