package main

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A claim counts as aligned only when every GPU has an HCA of its claim under its switch and every
// HCA such a GPU; attributes the driver publishes unqualified belong to its domain.
func TestAlignedClaimPairsEveryDeviceOfBothKinds(t *testing.T) {
	str := func(v string) resourcev1.DeviceAttribute { return resourcev1.DeviceAttribute{StringValue: &v} }
	dev := func(name, kind, sw string) resourcev1.Device {
		return resourcev1.Device{Name: name, Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
			"kind": str(kind), "tandem.dev/pcieSwitch": str(sw)}}
	}
	devs := publishedDevices([]resourcev1.ResourceSlice{{Spec: resourcev1.ResourceSliceSpec{Driver: "tandem.dev",
		Devices: []resourcev1.Device{dev("g1", "gpu", "s1"), dev("g2", "gpu", "s2"), dev("h1", "hca", "s1"), dev("h2", "hca", "s2"), dev("h3", "hca", "s1")}}}})
	if devs["g1"].kind != "gpu" || devs["h3"].kind != "hca" {
		t.Fatalf("kinds read from the unqualified attribute: %+v", devs)
	}
	attr := localityAttribute("")
	pick := func(names ...string) []publishedDevice {
		var out []publishedDevice
		for _, n := range names {
			out = append(out, devs[n])
		}
		return out
	}
	aligned := func(gpus, hcas []publishedDevice) bool {
		return paired(gpus, hcas, attr) && paired(hcas, gpus, attr)
	}
	if !aligned(pick("g1", "g2"), pick("h1", "h2")) {
		t.Error("two GPU+HCA pairs, one per switch: want aligned")
	}
	if aligned(pick("g1", "g2"), pick("h1", "h3")) {
		t.Error("g2's switch holds no HCA of the claim: want not aligned")
	}
	if aligned(pick("g1"), pick("h1", "h2")) {
		t.Error("h2's switch holds no GPU of the claim: want not aligned")
	}
}

// A dra-ext pod's devices are in the claim kube-scheduler wrote and named in the pod's status; a
// dra-root or dra-gen pod's in the claim named after it.
func TestClaimNameOfADRAPod(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	if got := claimName(p); got != "p" {
		t.Errorf("pod with a claim of its own: claim %q, want p", got)
	}
	p.Status.ExtendedResourceClaimStatus = &corev1.PodExtendedResourceClaimStatus{ResourceClaimName: "p-extended-resources-x7k2q"}
	if got := claimName(p); got != "p-extended-resources-x7k2q" {
		t.Errorf("dra-ext pod: claim %q, want the one in its status", got)
	}
}
