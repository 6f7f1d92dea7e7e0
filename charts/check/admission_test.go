package check

import (
	"strings"
	"testing"
)

// The own-node policy is rendered by default, scoped to the agent's ServiceAccount in the release's
// namespace, and agent.ownNodePolicy.enabled=false leaves out the policy and its binding.
func TestOwnNodePolicyFollowsItsValue(t *testing.T) {
	out, err := Template(nil, "--namespace", "gpu-ops")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := SplitYAML(out)
	if err != nil {
		t.Fatal(err)
	}
	policy := Find(objs, "ValidatingAdmissionPolicy", "tandem-node-topology-own-node")
	if policy == nil || Find(objs, "ValidatingAdmissionPolicyBinding", "tandem-node-topology-own-node") == nil {
		t.Fatalf("the defaults render no own-node policy and binding: %v", Keys(objs))
	}
	conds := policy["spec"].(map[string]any)["matchConditions"].([]any)
	expr := conds[0].(map[string]any)["expression"].(string)
	if !strings.Contains(expr, "'system:serviceaccount:gpu-ops:tandem-node-topology-agent'") {
		t.Errorf("matchConditions %q do not name the agent's ServiceAccount in the release namespace gpu-ops", expr)
	}
	off := render(t, []string{writeValues(t, "agent: {ownNodePolicy: {enabled: false}}")})
	for _, kind := range []string{"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"} {
		if Find(off, kind, "tandem-node-topology-own-node") != nil {
			t.Errorf("agent.ownNodePolicy.enabled=false still renders the %s", kind)
		}
	}
}
