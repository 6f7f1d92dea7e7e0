package check

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// draDriver.perNode: both DaemonSets, the DRA driver on the nodes labelled tandem.dev/device-path=dra
// and the device plugin on the others (each term of one's own required node affinity gets the
// expression), the agent on every selected node; the device plugin's ConfigMap, RBAC and
// NetworkPolicy beside the driver's.
func TestPerNodeDevicePath(t *testing.T) {
	objs := render(t, ci("dra-per-node"))
	userTerms := []string{
		`{"matchExpressions":[{"key":"node.kubernetes.io/instance-type","operator":"In","values":["hgx-h100"]}]}`,
		`{"matchFields":[{"key":"metadata.name","operator":"In","values":["gpu-node-7"]}]}`,
	}
	withPath := func(op string) []string {
		expr := `{"key":"tandem.dev/device-path","operator":"` + op + `","values":["dra"]}`
		return []string{
			`{"matchExpressions":[{"key":"node.kubernetes.io/instance-type","operator":"In","values":["hgx-h100"]},` + expr + `]}`,
			`{"matchExpressions":[` + expr + `],"matchFields":[{"key":"metadata.name","operator":"In","values":["gpu-node-7"]}]}`,
		}
	}
	for _, c := range []struct {
		daemonSet string
		terms     []string
	}{
		{"tandem-dra-driver", withPath("In")},
		{"tandem-device-plugin", withPath("NotIn")},
		{"tandem-node-topology-agent", userTerms},
	} {
		ds := Find(objs, "DaemonSet", c.daemonSet)
		if ds == nil {
			t.Fatalf("no DaemonSet %s: %v", c.daemonSet, Keys(objs))
		}
		if got := nodeSelectorTerms(t, ds); !reflect.DeepEqual(got, c.terms) {
			t.Errorf("%s: node selector terms\n%v\nwant\n%v", c.daemonSet, got, c.terms)
		}
		if sel := podSpec(ds)["nodeSelector"]; !reflect.DeepEqual(sel, map[string]any{"tandem.dev/rdma": "true"}) {
			t.Errorf("%s: nodeSelector %v, want nodes.nodeSelector's", c.daemonSet, sel)
		}
	}
	for _, k := range []struct{ kind, name string }{
		{"ConfigMap", "tandem-device-plugin-config"}, {"ServiceAccount", "tandem-device-plugin"}, {"ClusterRole", "tandem-device-plugin"},
		{"ClusterRole", "tandem-dra-driver"}, {"NetworkPolicy", "tandem-device-plugin"}, {"NetworkPolicy", "tandem-dra-driver"},
	} {
		if Find(objs, k.kind, k.name) == nil {
			t.Errorf("draDriver.perNode renders no %s %s", k.kind, k.name)
		}
	}
	// without an affinity of one's own, one term with the expression alone
	objs = render(t, []string{writeValues(t, "draDriver: {enabled: true, perNode: true}")})
	if got := nodeSelectorTerms(t, Find(objs, "DaemonSet", "tandem-dra-driver")); !reflect.DeepEqual(got, []string{`{"matchExpressions":[{"key":"tandem.dev/device-path","operator":"In","values":["dra"]}]}`}) {
		t.Errorf("DRA driver terms without nodes.affinity: %v", got)
	}
	if a := podSpec(Find(render(t, ci("dra")), "DaemonSet", "tandem-dra-driver"))["affinity"]; a != nil {
		t.Errorf("without draDriver.perNode the driver runs on every selected node, affinity %v", a)
	}
}

func nodeSelectorTerms(t *testing.T, ds Object) []string {
	t.Helper()
	a, _ := podSpec(ds)["affinity"].(map[string]any)
	na, _ := a["nodeAffinity"].(map[string]any)
	req, _ := na["requiredDuringSchedulingIgnoredDuringExecution"].(map[string]any)
	var out []string
	for _, term := range req["nodeSelectorTerms"].([]any) {
		b, err := json.Marshal(term)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// draDriver.claimTemplates: the named templates in each namespace, their specs the generator's
// (files/claim-templates.yaml; TestChartRendersTheKustomizeObjects compares every shipped one with
// manifests/examples/dra-claims), none by default.
func TestClaimTemplates(t *testing.T) {
	if objs := render(t, ci("dra-joint")); len(kindOf(objs, "ResourceClaimTemplate")) != 0 {
		t.Errorf("claim templates rendered by default: %v", kindOf(objs, "ResourceClaimTemplate"))
	}
	objs := render(t, []string{writeValues(t, "draDriver: {enabled: true, joint: true, claimTemplates: {enabled: true, namespaces: [ml, research]}}")})
	var want []string
	for _, ns := range []string{"ml", "research"} {
		for _, n := range []string{"1g1h", "2g2h", "4g4h", "8g8h"} {
			want = append(want, ns+"/tandem-"+n+"-switch")
		}
		for _, n := range []string{"1g1h", "2g2h", "4g4h", "8g8h"} {
			want = append(want, ns+"/tandem-"+n+"-switch-preferred")
		}
	}
	if got := kindOf(objs, "ResourceClaimTemplate"); !reflect.DeepEqual(got, want) {
		t.Errorf("default claim templates %v, want %v", got, want)
	}
	o := Find(objs, "ResourceClaimTemplate", "tandem-4g4h-switch")
	devices := o["spec"].(map[string]any)["spec"].(map[string]any)["devices"].(map[string]any)
	if n := len(devices["requests"].([]any)); n != 8 {
		t.Errorf("tandem-4g4h-switch has %d requests, want one per device (8)", n)
	}
}

func kindOf(objs []Object, kind string) []string {
	var out []string
	for _, o := range objs {
		if o["kind"] == kind {
			md := o["metadata"].(map[string]any)
			out = append(out, md["namespace"].(string)+"/"+md["name"].(string))
		}
	}
	return out
}

// Values the chart cannot honour are refused naming what to do.
func TestDraValuesRejected(t *testing.T) {
	for _, c := range []struct{ values, want string }{
		{"draDriver: {enabled: true, joint: true, claimTemplates: {enabled: true, names: [tandem-3g3h-switch]}}", "there is no shipped template tandem-3g3h-switch; the shipped ones are tandem-1g1h-none, "},
		{"draDriver: {enabled: true, claimTemplates: {enabled: true}}", "draDriver.claimTemplates.enabled installs claims that ask for the DeviceClasses tandem-gpu and tandem-hca"},
		{"draDriver: {perNode: true}", "draDriver.perNode puts the DRA driver on the nodes labelled tandem.dev/device-path=dra, but draDriver.enabled is false"},
		{"draDriver: {claimTemplates: {names: [gpu]}}", "at '/draDriver/claimTemplates/names/0': 'gpu' does not match pattern"},
	} {
		_, err := Template([]string{writeValues(t, c.values)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("values %q: got %v, want a message with %q", c.values, err, c.want)
		}
	}
}
