package main

import (
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
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
