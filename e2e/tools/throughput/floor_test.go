package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// The floor extender answers kube-scheduler's own encoding of each verb (extender/v1 types).
func TestFloorExtenderAnswersEachVerb(t *testing.T) {
	kube := fake.NewSimpleClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u"}})
	f, err := newFloorExtender(kube, nil, "/scheduler")
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	names := []string{"node-a", "node-b", "node-c"}
	args := extenderv1.ExtenderArgs{Pod: &corev1.Pod{}, NodeNames: &names}

	var filtered extenderv1.ExtenderFilterResult
	post(t, f.url+"/scheduler/filter", args, &filtered)
	if filtered.NodeNames == nil || len(*filtered.NodeNames) != 3 || len(filtered.FailedNodes) != 0 || filtered.Error != "" {
		t.Fatalf("filter must pass every node: %+v", filtered)
	}
	var scores extenderv1.HostPriorityList
	post(t, f.url+"/scheduler/prioritize", args, &scores)
	if len(scores) != 3 || scores[2].Host != "node-c" || scores[2].Score != 0 {
		t.Fatalf("prioritize must score every node 0: %+v", scores)
	}
	var bound extenderv1.ExtenderBindingResult
	post(t, f.url+"/scheduler/bind", extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "u", Node: "node-b"}, &bound)
	if bound.Error != "" {
		t.Fatalf("bind: %s", bound.Error)
	}
	var binding *corev1.Binding
	for _, a := range kube.Actions() {
		if c, ok := a.(k8stesting.CreateAction); ok && a.GetSubresource() == "binding" {
			binding, _ = c.GetObject().(*corev1.Binding)
		}
	}
	if binding == nil || binding.Target.Name != "node-b" || binding.Name != "p" || binding.Annotations["tandem.dev/plan"] == "" {
		t.Fatalf("bind must post the pod's Binding to node-b with a plan-sized annotation, got %+v", binding)
	}
}

func TestFloorExtenderRefusesABodyWithoutNodeNames(t *testing.T) {
	f, err := newFloorExtender(fake.NewSimpleClientset(), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	resp, err := http.Post(f.url+"/filter", "application/json", bytes.NewBufferString(`{"Pod":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("got %d, want 400", resp.StatusCode)
	}
}

func post(t *testing.T, url string, body, into any) {
	t.Helper()
	raw, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatal(err)
	}
}
