//go:build e2e && !k8s134

package scenarios

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/dra"
	"tandem.dev/e2e/internal/harness"
)

// The machines of TestDRA that no hwloc export holds with their HCAs (test-fixtures' DGX-2H export
// has its 16 GPUs but no HCA): test-fixtures' RealMachines models of nvidia-smi captures, checked
// against the capture cell by cell (NvidiaSmiMatrixTest), written as the kernel's sysfs by its
// FakeSysfs (MachineTrees). Counts are what the NodeTopology must say.
var (
	// hgxH100 has each of its 8 GPUs on a switch with one ConnectX-7 (hgx-h100-8gpu-8nic capture).
	hgxH100 = harness.Machine{File: "hgx-h100-8nic", GPUs: 8, HCAs: 8}
	// dgxA100 has per NUMA node 2 GPUs and 2 NICs under one switch (PXB), and the two ports of a
	// storage NIC under a switch of their own, SYS to every GPU (dgx-a100 capture).
	dgxA100 = harness.Machine{File: "dgx-a100", GPUs: 8, HCAs: 10}
)

// draTreeNode creates the node of a machine of test-fixtures' MachineTrees: its sysfs tree written
// by the Java fixture at draSysfs, the real agent reading it (--sysfs-only; a Grace tray's through
// its libraries, graceTrays), the NodeTopology waited for.
func (k *cluster) draTreeNode(t *testing.T, ns string, m harness.Machine) string {
	t.Helper()
	return k.treeNode(t, ns, ns+"-"+m.File, m)
}

// treeNode is draTreeNode for a node of the given name: a scenario with several nodes of one machine.
func (k *cluster) treeNode(t *testing.T, ns, name string, m harness.Machine) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := k.c.CreateNode(ctx, harness.NodeSpec{Name: name, GPUs: m.GPUs, HCAs: m.HCAs,
		Labels: map[string]string{groupLabel: ns}}); err != nil {
		t.Fatal(err)
	}
	root := draSysfs(name)
	if err := k.writeMachineTree(m.File, root, verbsLayout(name)); err != nil {
		t.Fatal(err)
	}
	var err error
	if graceTrays[m.File] {
		err = k.startAgentWith(name, fakeIbverbs(t, name), "--sysfs-root", root)
	} else {
		err = k.startAgentOn(name, "--sysfs-root", root, "--sysfs-only")
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := k.waitTopology(ctx, name, harness.Machine{File: m.File + " (sysfs tree)", GPUs: m.GPUs, HCAs: m.HCAs}); err != nil {
		t.Fatal(err)
	}
	return name
}

// writeMachineTree writes the machine's sysfs tree under root, and at layout what its libibverbs and
// libmlx5 would answer (e2e/tools/fakeibverbs), with test-fixtures' MachineTrees.
func (k *cluster) writeMachineTree(machine, root, layout string) error {
	cp := k.env.Jar("test-fixtures") + string(os.PathListSeparator) + k.env.Jar("dra-driver")
	if out, err := exec.Command(k.env.Java, "-cp", cp, "dev.tandem.fixtures.MachineTrees", machine, root, layout).CombinedOutput(); err != nil {
		return fmt.Errorf("writing %s's sysfs tree: %v\n%s", machine, err, out)
	}
	return nil
}

// draHGXH100: an HGX H100 of 8 GPU+HCA switches. 1+1 claims are met, 2+2 and 4+4 never; then an HCA
// of a prepared claim goes unhealthy (draHcaUnhealthy).
func draHGXH100(t *testing.T, ns string) {
	node := cl.draTreeNode(t, ns, hgxH100)
	topo, gpus, hcas := cl.devicesOf(t, node)
	n := cl.draNode(t, node, gpus, hcas, "")
	n.args = []string{"--rediscover-interval", "1"}
	kubelet, devs := n.start(t, topo, len(gpus)+len(hcas))
	bound, _ := n.allocateInTurn(t, ns, "hgx", []int64{2, 1, 4, 1}, devs, topo)
	n.hcaUnhealthy(t, ns, kubelet, bound[0], devs)
}

// draDGXA100: a DGX A100, whose storage NIC's two ports are under a switch no GPU is under. Four
// 2+2 claims and 1+1 ones fill the four GPU switches; a 4+4 claim and a 1+1 claim once they are full
// pend, while the storage HCAs stay free: a switch-policy claim never gets them.
func draDGXA100(t *testing.T, ns string) {
	node := cl.draTreeNode(t, ns, dgxA100)
	topo, gpus, hcas := cl.devicesOf(t, node)
	n := cl.draNode(t, node, gpus, hcas, "")
	_, devs := n.start(t, topo, len(gpus)+len(hcas))
	storage := storageHcas(devs)
	var ibs []string
	for _, d := range storage {
		ibs = append(ibs, d.ibDevice)
	}
	if !sameSet(ibs, []string{"mlx5_8", "mlx5_9"}) {
		t.Fatalf("HCAs under no GPU's switch: %v, want the storage NIC's mlx5_8 and mlx5_9", ibs)
	}
	_, taken := n.allocateInTurn(t, ns, "dgx", []int64{2, 1, 2, 2, 4, 1, 1}, devs, topo)
	for _, d := range storage {
		if taken[d.name] {
			t.Errorf("storage HCA %s (%s, switch %s) granted to a switch-policy claim", d.name, d.ibDevice, d.pcieSwitch)
		}
	}
	if want := len(gpus) + len(hcas) - len(storage); len(taken) != want {
		t.Errorf("%d devices allocated, want every GPU and every HCA but the storage ones (%d)", len(taken), want)
	}
}

// storageHcas are the published HCAs under no GPU's switch.
func storageHcas(devs map[string]publishedDevice) []publishedDevice {
	gpuSwitch := map[string]bool{}
	for _, d := range devs {
		if d.kind == "gpu" && d.pcieSwitch != "" {
			gpuSwitch[d.pcieSwitch] = true
		}
	}
	var out []publishedDevice
	for _, d := range devs {
		if d.kind == "hca" && !gpuSwitch[d.pcieSwitch] {
			out = append(out, d)
		}
	}
	return out
}

// hcaUnhealthy: the pod's claim is prepared; its HCA's port goes DOWN. The driver's rediscovery
// re-publishes the HCA with a NoSchedule taint, and the prepared claim stays as it was (allocated,
// reserved, its CDI spec in place). Once the pod is gone, a claim that only that HCA can serve (its
// switch's GPU and HCA) pends with kube-scheduler's reason; when the port is ACTIVE again the taint
// goes and the same pod is bound with that HCA.
func (n *draNode) hcaUnhealthy(t *testing.T, ns string, kubelet *dra.Kubelet, bound *corev1.Pod, devs map[string]publishedDevice) {
	t.Helper()
	pod := n.prepareAndCheck(t, kubelet, bound, devs)
	c := claimOf(t, pod)
	var hca publishedDevice
	for _, r := range c.Status.Allocation.Devices.Results {
		if d := devs[r.Device]; d.kind == "hca" {
			hca = d
		}
	}
	state := filepath.Join(n.sysfs, "sys", "class", "infiniband", hca.ibDevice, "ports", "1", "state")
	if err := os.WriteFile(state, []byte("1: DOWN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n.waitTaint(t, hca.name, true)

	again, err := cl.c.Kube.ResourceV1().ResourceClaims(ns).Get(context.Background(), c.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	held := false
	for _, r := range again.Status.Allocation.Devices.Results {
		held = held || r.Device == hca.name
	}
	reserved := len(again.Status.ReservedFor) == 1 && again.Status.ReservedFor[0].UID == pod.UID
	if !held || !reserved {
		t.Errorf("claim %s after its HCA %s was tainted: holds it %v, reserved for pod %s %v (%+v)", c.Name, hca.name, held, pod.Name, reserved, again.Status)
	}
	if _, err := os.Stat(n.specFile(c)); err != nil {
		t.Errorf("the prepared claim %s's CDI spec after its HCA %s was tainted: %v", c.Name, hca.name, err)
	}
	t.Logf("HCA %s (%s) tainted while pod %s runs: claim %s still allocated, reserved and prepared", hca.name, hca.ibDevice, pod.Name, c.Name)

	n.unprepareAndCheck(t, kubelet, pod)
	cl.deleteNow(t, ns, pod.Name)
	eventually(t, 60*time.Second, "claim "+c.Name+" deleted with its pod", func(ctx context.Context) error {
		if _, err := cl.c.Kube.ResourceV1().ResourceClaims(ns).Get(ctx, c.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (%v)", err)
		}
		return nil
	})
	name := "hgx-tainted-switch"
	cl.switchPinnedPod(t, ns, name, n.name, hca.pcieSwitch)
	cl.waitUnschedulable(t, ns, name)

	if err := os.WriteFile(state, []byte("4: ACTIVE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n.waitTaint(t, hca.name, false)
	cl.waitBound(t, ns, name, 90*time.Second)
	pinned, err := cl.c.Kube.ResourceV1().ResourceClaims(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := false
	for _, r := range pinned.Status.Allocation.Devices.Results {
		got = got || r.Device == hca.name
	}
	if !got {
		t.Errorf("pod %s bound once %s was healthy again, but its claim holds %+v", name, hca.name, pinned.Status.Allocation.Devices.Results)
	}
	t.Logf("pod %s pending while %s was tainted, bound with it once healthy", name, hca.name)
}

// waitTaint waits until the node's published device carries the driver's NoSchedule health taint
// (tainted) or no taint at all.
func (n *draNode) waitTaint(t *testing.T, device string, tainted bool) {
	t.Helper()
	eventually(t, 60*time.Second, fmt.Sprintf("device %s of %s tainted: %v", device, n.name, tainted), func(ctx context.Context) error {
		list, err := cl.c.Kube.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{
			FieldSelector: resourcev1.ResourceSliceSelectorNodeName + "=" + n.name + "," + resourcev1.ResourceSliceSelectorDriver + "=" + draDriver})
		if err != nil {
			return err
		}
		for _, s := range list.Items {
			for _, d := range s.Spec.Devices {
				if d.Name != device {
					continue
				}
				health := len(d.Taints) == 1 && d.Taints[0].Key == draDriver+"/unhealthy" && d.Taints[0].Effect == resourcev1.DeviceTaintEffectNoSchedule
				if (tainted && health) || (!tainted && len(d.Taints) == 0) {
					t.Logf("device %s taints: %+v", device, d.Taints)
					return nil
				}
				return fmt.Errorf("taints %+v (driver running: %v)", d.Taints, n.driver.Running())
			}
		}
		return fmt.Errorf("not published")
	})
}

// switchPinnedPod creates a pod on node with a claim (its own, deleted when t ends) for 1 GPU and 1
// HCA under the switch key sw.
func (k *cluster) switchPinnedPod(t *testing.T, ns, name, node, sw string) {
	t.Helper()
	k.pinnedClaimPod(t, ns, name, node, "pcieSwitch", sw, "gpu", "hca")
}

// pinnedClaimPod creates a pod on node with a claim of its own (deleted when t ends) asking one device
// of each kind whose Tandem attribute attr is value.
func (k *cluster) pinnedClaimPod(t *testing.T, ns, name, node, attr, value string, kinds ...string) {
	t.Helper()
	var reqs []resourcev1.DeviceRequest
	for _, kind := range kinds {
		reqs = append(reqs, resourcev1.DeviceRequest{Name: kind, Exactly: &resourcev1.ExactDeviceRequest{
			DeviceClassName: "tandem-" + kind, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1,
			Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
				Expression: fmt.Sprintf(`device.attributes[%q].%s == %q`, draDriver, attr, value)}}}}})
	}
	claim := &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: reqs}},
	}
	ctx := context.Background()
	if _, err := k.c.Kube.ResourceV1().ResourceClaims(ns).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k.c.Kube.ResourceV1().ResourceClaims(ns).Delete(ctx, name, metav1.DeleteOptions{}) })
	claimName := name
	k.createClaimPod(t, ns, name, node, corev1.PodResourceClaim{Name: draPodClaim, ResourceClaimName: &claimName})
}
