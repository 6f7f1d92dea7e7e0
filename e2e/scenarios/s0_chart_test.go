//go:build e2e

package scenarios

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"tandem.dev/e2e/internal/harness"
)

// Every object the chart renders, for each case of the values matrix (the defaults and
// charts/tandem/ci/*-values.yaml: each mode, joint mode, each wiring, TLS, NFD, NetworkPolicy,
// dashboard), with and without the Prometheus Operator's API, passes the API server's own validation
// (kubectl apply --server-side --dry-run=server), on the installed cluster (the stand-in monitoring
// CRDs are there). A dry run changes nothing another scenario sees.
func TestChartRendersPassServerDryRun(t *testing.T) {
	chart := cl.env.Path("charts", "tandem")
	files, err := filepath.Glob(filepath.Join(chart, "ci", "*-values.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no values files under charts/tandem/ci: %v", err)
	}
	cases := map[string][]string{"default": nil}
	for _, f := range files {
		cases[strings.TrimSuffix(filepath.Base(f), "-values.yaml")] = []string{"--values", f}
	}
	monitoring := []string{"--api-versions", "monitoring.coreos.com/v1/ServiceMonitor",
		"--api-versions", "monitoring.coreos.com/v1/PodMonitor", "--api-versions", "monitoring.coreos.com/v1/PrometheusRule"}
	for name, values := range cases {
		for _, caps := range [][]string{nil, monitoring} {
			args := append([]string{"template", "tandem", chart, "--namespace", "tandem-system", "--kube-version", cl.env.K8sVersion()}, values...)
			out, err := cl.env.Helm(append(args, caps...)...)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			docs, err := harness.ParseStream("helm template "+name, out)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cl.env.Kubectl([]byte(out), "apply", "--server-side", "--dry-run=server", "--force-conflicts",
				"--field-manager=tandem-chart-dry-run", "-f", "-"); err != nil {
				t.Errorf("%s (%d objects, monitoring API %v): the API server rejects the render: %v", name, len(docs), caps != nil, err)
			}
		}
	}
	// and the dry-run does reject what the schema lets through: a toleration with an unknown effect
	out, err := cl.env.Helm("template", "tandem", chart, "--namespace", "tandem-system", "--kube-version", cl.env.K8sVersion(),
		"--set-json", `nodes.tolerations=[{"key":"nvidia.com/gpu","operator":"Exists","effect":"Sometimes"}]`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cl.env.Kubectl([]byte(out), "apply", "--server-side", "--dry-run=server", "--force-conflicts", "--field-manager=tandem-chart-dry-run", "-f", "-")
	if err == nil || !strings.Contains(err.Error(), "Sometimes") {
		t.Errorf("the API server accepted a DaemonSet tolerating with effect Sometimes: %v", err)
	}
}

// The extenders entry the chart's NOTES print for the default-scheduler wiring (the operator copies it
// to the control plane) is the entry of manifests/scheduler/default-scheduler-patch/extender.yaml,
// which manifests/check validates with kube-scheduler's own code. (--take-ownership: a dry run must not
// stop at the installed objects that another release or kubectl owns; nothing is changed.)
func TestChartNotesPrintTheDefaultSchedulerEntry(t *testing.T) {
	out, err := cl.env.Helm("install", "notes", cl.env.Path("charts", "tandem"), "--namespace", "tandem-system",
		"--dry-run=client", "--take-ownership", "--set", "scheduler.wiring=default-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(out, "\nextenders:\n")
	if i < 0 {
		t.Fatalf("the NOTES print no extenders entry:\n%s", out)
	}
	entry := out[i+1:]
	if j := strings.Index(entry, "\n\n"); j >= 0 {
		entry = entry[:j]
	}
	var got, want map[string]any
	if err := yaml.Unmarshal([]byte(entry), &got); err != nil {
		t.Fatalf("NOTES entry is not YAML: %v\n%s", err, entry)
	}
	b, err := os.ReadFile(cl.env.Path("manifests", "scheduler", "default-scheduler-patch", "extender.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got["extenders"], want["extenders"]) {
		t.Errorf("NOTES entry\n%v\ndiffers from default-scheduler-patch/extender.yaml's\n%v", got["extenders"], want["extenders"])
	}
}
