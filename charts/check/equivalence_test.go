package check

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The chart and the kustomize manifests are one source of truth: for each way of installing, the
// chart's render and the kustomize build are the same objects, field for field, after Normalize
// (which lists the intended differences). The Namespace is kustomize's only: Helm installs into a
// namespace it is given (--create-namespace). The certificates are made differently on purpose
// (docs/install.md, "Certificates"): kustomize runs the certificate Job, the chart renders the
// Secrets itself (Helm's genCA, kept by lookup) so they belong to the release; kustomize ships the
// extender's NetworkPolicies, the chart renders them with networkPolicy.enabled
// (TestChartNetworkPolicyIsTheKustomizeOne).
func TestChartRendersTheKustomizeObjects(t *testing.T) {
	cases := []struct {
		name   string
		values []string
		caps   []string
		dirs   []string
	}{
		{"defaults = manifests/ + second scheduler", nil, nil, []string{"", "scheduler/second-scheduler"}},
		{"default-scheduler wiring = manifests/ + default-scheduler-patch", ci("default-scheduler"), nil, []string{"", "scheduler/default-scheduler-patch"}},
		{"joint mode = overlays/joint + second scheduler", ci("joint"), nil, []string{"overlays/joint", "scheduler/second-scheduler"}},
		{"NCCL topology file = overlays/nccl-topology + second scheduler", ci("nccl-topology"), nil, []string{"overlays/nccl-topology", "scheduler/second-scheduler"}},
		{"DRA driver = overlays/dra + second scheduler", ci("dra"), nil, []string{"overlays/dra", "scheduler/second-scheduler"}},
		{"DRA driver, joint mode = overlays/dra-joint + second scheduler", ci("dra-joint"), nil, []string{"overlays/dra-joint", "scheduler/second-scheduler"}},
		{"DRA joint mode with every shipped claim template = overlays/dra-joint + examples/dra-claims + second scheduler", ci("dra-claims"), nil, []string{"overlays/dra-joint", "examples/dra-claims", "scheduler/second-scheduler"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want []Object
			for _, d := range c.dirs {
				objs, err := Kustomize(d)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, objs...)
			}
			var got []Object
			for _, o := range render(t, c.values, c.caps...) {
				if Key(o) != "Secret tandem-system/tandem-scheduler-extender-tls" && Key(o) != "Secret tandem-system/tandem-scheduler-client-tls" {
					got = append(got, o)
				}
			}
			compare(t, got, want, func(o Object) bool {
				return o["kind"] == "Namespace" || o["kind"] == "NetworkPolicy" || strings.HasSuffix(Key(o), "/tandem-certificates")
			})
		})
	}
}

// The chart's NetworkPolicy of the extender admits what kustomize's admits: the second scheduler's
// pods to the verbs port, anyone to the inspection port.
func TestChartNetworkPolicyIsTheKustomizeOne(t *testing.T) {
	want, err := Kustomize("")
	if err != nil {
		t.Fatal(err)
	}
	var kept []Object
	for _, o := range want {
		if o["kind"] == "NetworkPolicy" {
			kept = append(kept, o)
		}
	}
	var got []Object
	for _, o := range render(t, []string{writeValues(t, "networkPolicy: {enabled: true}")}) {
		if Key(o) == "NetworkPolicy tandem-system/tandem-scheduler-extender" {
			got = append(got, o)
		}
	}
	compare(t, got, kept, func(Object) bool { return false })
}

// With the Prometheus Operator's API and the dashboard switched on, the chart's monitoring objects are
// those of manifests/monitoring (ServiceMonitor, PodMonitor, PrometheusRule, dashboard ConfigMap).
func TestChartMonitoringIsManifestsMonitoring(t *testing.T) {
	want, err := Kustomize("monitoring")
	if err != nil {
		t.Fatal(err)
	}
	f := writeValues(t, "metrics: {dashboard: {enabled: true}}")
	var got []Object
	for _, o := range render(t, []string{f}, monitoringAPIs...) {
		if strings.HasPrefix(o["apiVersion"].(string), "monitoring.coreos.com/") || Key(o) == "ConfigMap tandem-system/tandem-dashboard" {
			got = append(got, o)
		}
	}
	compare(t, got, want, func(Object) bool { return false })
}

func compare(t *testing.T, got, want []Object, kustomizeOnly func(Object) bool) {
	t.Helper()
	byKey := map[string]Object{}
	for _, o := range want {
		if kustomizeOnly(o) {
			continue
		}
		o = Normalize(o)
		byKey[Key(o)] = o
	}
	seen := map[string]bool{}
	for _, o := range got {
		o = Normalize(o)
		k := Key(o)
		seen[k] = true
		w, ok := byKey[k]
		if !ok {
			t.Errorf("the chart renders %s, kustomize does not", k)
			continue
		}
		if !reflect.DeepEqual(o, w) {
			g, _ := json.MarshalIndent(o, "", " ")
			x, _ := json.MarshalIndent(w, "", " ")
			t.Errorf("%s differs\nchart:     %s\nkustomize: %s", k, g, x)
		}
	}
	for k := range byKey {
		if !seen[k] {
			t.Errorf("kustomize builds %s, the chart does not render it", k)
		}
	}
}

// The equivalence check fails when the two differ (a changed field, a missing object).
func TestEquivalenceCheckCatchesADifference(t *testing.T) {
	want, err := Kustomize("")
	if err != nil {
		t.Fatal(err)
	}
	f := writeValues(t, "extender: {replicas: 3}\nscheduler: {wiring: none}")
	got := render(t, []string{f})
	fails := diffCount(got, want)
	if fails == 0 {
		t.Fatal("a chart with 3 extender replicas compared equal to the kustomize base")
	}
}

// diffCount counts the objects that differ between got and want (after Normalize), as compare sees them.
func diffCount(got, want []Object) int {
	byKey := map[string]Object{}
	for _, o := range want {
		if o["kind"] != "Namespace" {
			o = Normalize(o)
			byKey[Key(o)] = o
		}
	}
	n := 0
	for _, o := range got {
		o = Normalize(o)
		if w, ok := byKey[Key(o)]; !ok || !reflect.DeepEqual(o, w) {
			n++
		}
	}
	return n
}
