package check

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// kustomizations lists every manifests/ kustomization an operator may apply.
var kustomizations = []string{"", "scheduler/second-scheduler", "scheduler/default-scheduler-patch", "overlays/joint", "overlays/dra", "overlays/dra-joint", "monitoring"}

// The shipped RBAC grants nothing by wildcard: no "*" verb, resource, API group, resource name or
// non-resource URL, in every kustomization and every case of the chart's values matrix.
func TestShippedRBACHasNoWildcards(t *testing.T) {
	for _, rel := range kustomizations {
		objs, err := Kustomize(rel)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wildcardGrants(objs) {
			t.Errorf("manifests/%s: %s", rel, w)
		}
	}
	for name, files := range matrix(t) {
		for _, w := range wildcardGrants(render(t, files, monitoringAPIs...)) {
			t.Errorf("chart (%s values): %s", name, w)
		}
	}
}

// The check finds each kind of wildcard, and passes a rule without one.
func TestWildcardCheckFindsWildcards(t *testing.T) {
	role := func(rules ...map[string]any) Object {
		rs := make([]any, 0, len(rules))
		for _, r := range rules {
			rs = append(rs, r)
		}
		return Object{"kind": "ClusterRole", "metadata": map[string]any{"name": "r"}, "rules": rs}
	}
	exact := map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}
	if got := wildcardGrants([]Object{role(exact)}); len(got) != 0 {
		t.Errorf("an exact rule was reported: %v", got)
	}
	bad := []map[string]any{
		{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"*"}},
		{"apiGroups": []any{"*"}, "resources": []any{"pods"}, "verbs": []any{"get"}},
		{"apiGroups": []any{""}, "resources": []any{"pods/*"}, "verbs": []any{"get"}},
		{"apiGroups": []any{""}, "resources": []any{"pods"}, "resourceNames": []any{"*"}, "verbs": []any{"get"}},
		{"nonResourceURLs": []any{"/metrics*"}, "verbs": []any{"get"}},
	}
	for _, r := range bad {
		got := wildcardGrants([]Object{role(exact, r)})
		want := []string{fmt.Sprintf("ClusterRole /r rule 2 grants by wildcard: %v", r)}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rule %v: got %v, want %v", r, got, want)
		}
	}
	if got := wildcardGrants([]Object{{"kind": "Role", "metadata": map[string]any{"name": "x", "namespace": "n"}, "rules": []any{bad[0]}}}); len(got) != 1 {
		t.Errorf("a namespaced Role with a wildcard verb: %v", got)
	}
}

// wildcardGrants describes every Role or ClusterRole rule that names something with "*".
func wildcardGrants(objs []Object) []string {
	var out []string
	for _, o := range objs {
		if o["kind"] != "Role" && o["kind"] != "ClusterRole" {
			continue
		}
		rules, _ := o["rules"].([]any)
		for i, r := range rules {
			rule, _ := r.(map[string]any)
			if hasWildcard(rule) {
				out = append(out, fmt.Sprintf("%s rule %d grants by wildcard: %v", Key(o), i+1, rule))
			}
		}
	}
	return out
}

func hasWildcard(rule map[string]any) bool {
	for _, field := range []string{"verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"} {
		values, _ := rule[field].([]any)
		for _, v := range values {
			if s, _ := v.(string); strings.Contains(s, "*") {
				return true
			}
		}
	}
	return false
}
