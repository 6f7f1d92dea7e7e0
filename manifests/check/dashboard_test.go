package check

import (
	"os"
	"path/filepath"
	"testing"
)

// The Grafana dashboard exists once: manifests/monitoring generates its ConfigMap from
// tandem-dashboard.json as the file is, and the chart's files/tandem-dashboard.json is that same file
// (a symbolic link into this kustomization: a link the other way, out of it, kustomize refuses).
func TestDashboardIsOneFile(t *testing.T) {
	file := filepath.Join(ManifestsDir(), "monitoring", "tandem-dashboard.json")
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range mustRender(t, "monitoring") {
		if r.GetKind() == "ConfigMap" && r.GetName() == "tandem-dashboard" {
			found = true
			if got := r.GetDataMap()["tandem-dashboard.json"]; got != string(want) {
				t.Errorf("ConfigMap tandem-dashboard's tandem-dashboard.json differs from %s", file)
			}
		}
	}
	if !found {
		t.Fatal("kustomize build manifests/monitoring: no ConfigMap tandem-dashboard")
	}
	chart := filepath.Join(ManifestsDir(), "..", "charts", "tandem", "files", "tandem-dashboard.json")
	a, errA := os.Stat(chart)
	b, errB := os.Stat(file)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		t.Errorf("%s is not %s (%v, %v): the chart must read the one dashboard file", chart, file, errA, errB)
	}
}
