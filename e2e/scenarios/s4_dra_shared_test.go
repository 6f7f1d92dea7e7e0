//go:build e2e && !k8s134

package scenarios

import (
	"fmt"
	"testing"
	"time"
)

// sharesPerHca is the driver's --shares-per-hca in draSharedHcas: small, so that the shares run out.
const sharesPerHca = 3

// draSharedHcas: the driver in --mode shared (allowMultipleAllocations and a consumable capacity
// tandem.dev/shares per HCA, KEP-5075; DRAConsumableCapacity is beta and on from 1.36) on an HGX H100
// tree. Pods whose claims ask one HCA, pinned by CEL to one HCA, are each given that same device with
// a share of their own (shareID) and the one share the request policy gives by default, until its
// shares are spent: the next pod pends with kube-scheduler's reason. Each bound claim is prepared
// through the kubelet's DRA manager into a CDI spec of its own holding that HCA's uverbs node.
func draSharedHcas(t *testing.T, ns string) {
	node := cl.draTreeNode(t, ns+"-shared", hgxH100)
	topo, gpus, hcas := cl.devicesOf(t, node)
	n := cl.draNode(t, node, gpus, hcas, "")
	n.args = []string{"--mode", "shared", "--shares-per-hca", fmt.Sprint(sharesPerHca)}
	kubelet, devs := n.start(t, topo, len(gpus)+len(hcas))
	var pinned publishedDevice
	for _, d := range devs {
		if d.kind == "hca" && d.ibDevice == "mlx5_0" {
			pinned = d
		}
	}
	if pinned.name == "" {
		t.Fatalf("no published HCA with ibDevice mlx5_0 on %s", node)
	}
	shares := map[string]string{}
	for i := 0; i <= sharesPerHca; i++ {
		name := fmt.Sprintf("shared-%d", i)
		cl.pinnedClaimPod(t, ns, name, node, "ibDevice", pinned.ibDevice, "hca")
		if i == sharesPerHca {
			cl.waitUnschedulable(t, ns, name)
			continue
		}
		pod := cl.waitBound(t, ns, name, 90*time.Second)
		c := claimOf(t, pod)
		results := c.Status.Allocation.Devices.Results
		if len(results) != 1 || results[0].Device != pinned.name || results[0].ShareID == nil {
			t.Fatalf("pod %s: claim %s allocated %+v, want one share of %s", name, c.Name, results, pinned.name)
		}
		r := results[0]
		if got := r.ConsumedCapacity["tandem.dev/shares"]; got.Value() != 1 {
			t.Errorf("pod %s: consumed capacity %v, want tandem.dev/shares 1 (the request policy's default)", name, r.ConsumedCapacity)
		}
		share := string(*r.ShareID)
		if other, seen := shares[share]; seen {
			t.Errorf("pods %s and %s hold the same share %s of %s", other, name, share, pinned.name)
		}
		shares[share] = name
		n.prepareAndCheck(t, kubelet, pod, devs)
	}
	t.Logf("%d claims share %s (%s), each with a share of its own; one more pends", sharesPerHca, pinned.name, pinned.ibDevice)
}
