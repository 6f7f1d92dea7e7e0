//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"tandem.dev/e2e/internal/harness"
)

const agentSA = "tandem-node-topology-agent"

// TestAgentTokenWritesOnlyItsOwnNode: the shipped ValidatingAdmissionPolicy, in the real kube-apiserver,
// lets a token of the agent's ServiceAccount bound to a pod on node A write NodeTopology A (object and
// status) and nothing of node B; a token bound to a pod on B writes B; a token bound to no pod writes
// nothing; the extender's ServiceAccount and an administrator pass untouched.
func TestAgentTokenWritesOnlyItsOwnNode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a, b := "own-node-a", "own-node-b"
	admin := cl.c.Dynamic.Resource(harness.NodeTopologies)
	for _, n := range []string{a, b} {
		if err := cl.c.CreateNode(ctx, harness.NodeSpec{Name: n, Labels: map[string]string{groupLabel: "own-node"}}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, n := range []string{a, b} {
			_ = admin.Delete(ctx, n, metav1.DeleteOptions{})
			_ = cl.c.DeletePodNow(ctx, "tandem-system", "own-node-agent-"+n)
			_ = cl.c.Kube.CoreV1().Nodes().Delete(ctx, n, metav1.DeleteOptions{})
		}
	})
	onA := writerAs(t, ctx, podBoundKubeconfig(t, ctx, a))
	onB := writerAs(t, ctx, podBoundKubeconfig(t, ctx, b))
	// the test also grants delete (the agent has none) and extender writes, to reach the policy itself
	grantWrites(t, ctx, agentSA, "tandem-scheduler-extender")

	refused := func(err error, op, what, node string) {
		t.Helper()
		want := fmt.Sprintf("%s of NodeTopology %s refused: the token of system:serviceaccount:tandem-system:%s is bound to node %s", op, what, agentSA, node)
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s of %s with a token bound to %s: want 403 with %q, got %v", op, what, node, want, err)
		}
	}
	// the policy is enforced once the API server's admission has loaded it: wait for that, then assert
	eventually(t, time.Minute, "the policy refuses node A's token a create of NodeTopology B", func(ctx context.Context) error {
		if err := onA.create(b); !apierrors.IsForbidden(err) {
			if err == nil {
				_ = admin.Delete(ctx, b, metav1.DeleteOptions{})
			}
			return fmt.Errorf("create of B with A's token: %v", err)
		}
		return nil
	})
	refused(onA.create(b), "CREATE", b, a)

	if err := onA.create(a); err != nil {
		t.Fatalf("node A's token cannot create NodeTopology A: %v", err)
	}
	if err := onA.update(a, false); err != nil {
		t.Errorf("node A's token cannot update NodeTopology A: %v", err)
	}
	if err := onA.update(a, true); err != nil {
		t.Errorf("node A's token cannot update the status of NodeTopology A: %v", err)
	}

	if err := onB.create(b); err != nil {
		t.Fatalf("node B's token cannot create NodeTopology B: %v", err)
	}
	refused(onA.update(b, false), "UPDATE", b, a)
	refused(onA.update(b, true), "UPDATE", b+"/status", a)
	refused(onA.delete(b), "DELETE", b, a)
	if err := onB.update(b, true); err != nil {
		t.Errorf("node B's token cannot update the status of NodeTopology B: %v", err)
	}

	unbound, err := cl.c.ServiceAccountKubeconfig(ctx, cl.env, "tandem-system", agentSA)
	if err != nil {
		t.Fatal(err)
	}
	err = writerAs(t, ctx, unbound).update(a, false)
	if want := "is not bound to a node (no authentication.kubernetes.io/node-name in its user extra). Run the agent with the projected service-account token of its pod"; !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("a token of the agent bound to no pod: want 403 with %q, got %v", want, err)
	}

	if err := writerAs(t, ctx, cl.extKC).update(b, true); err != nil {
		t.Errorf("the extender's ServiceAccount (granted update here) is refused: %v", err)
	}
	adminWriter := &topologyWriter{t: t, ctx: ctx, r: admin}
	if err := adminWriter.update(b, false); err != nil {
		t.Errorf("the administrator cannot update NodeTopology B: %v", err)
	}
	if err := onA.delete(a); err != nil {
		t.Errorf("node A's token (granted delete here) cannot delete NodeTopology A: %v", err)
	}
}

// podBoundKubeconfig creates the stand-in of an agent pod on node and a token bound to it.
func podBoundKubeconfig(t *testing.T, ctx context.Context, node string) string {
	t.Helper()
	pod, err := cl.c.StandInPod(ctx, "tandem-system", "own-node-agent-"+node, agentSA, node)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := cl.c.PodBoundKubeconfig(ctx, cl.env, pod)
	if err != nil {
		t.Fatal(err)
	}
	return kc
}

// grantWrites gives the ServiceAccounts update and delete of NodeTopologies for this test only (RBAC
// decides before admission: without it the requests would never reach the policy).
func grantWrites(t *testing.T, ctx context.Context, accounts ...string) {
	t.Helper()
	name := "tandem-e2e-own-node-writes"
	rbac := cl.c.Kube.RbacV1()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"tandem.dev"}, Resources: []string{"nodetopologies", "nodetopologies/status"},
		Verbs: []string{"update", "delete"},
	}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name}}
	for _, a := range accounts {
		binding.Subjects = append(binding.Subjects, rbacv1.Subject{Kind: "ServiceAccount", Name: a, Namespace: "tandem-system"})
	}
	if _, err := rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rbac.ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = rbac.ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = rbac.ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{})
	})
}

// topologyWriter writes minimal NodeTopology objects as one identity.
type topologyWriter struct {
	t   *testing.T
	ctx context.Context
	r   interface {
		Create(context.Context, *unstructured.Unstructured, metav1.CreateOptions, ...string) (*unstructured.Unstructured, error)
		Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
		Update(context.Context, *unstructured.Unstructured, metav1.UpdateOptions, ...string) (*unstructured.Unstructured, error)
		UpdateStatus(context.Context, *unstructured.Unstructured, metav1.UpdateOptions) (*unstructured.Unstructured, error)
		Delete(context.Context, string, metav1.DeleteOptions, ...string) error
	}
}

func writerAs(t *testing.T, ctx context.Context, kubeconfig string) *topologyWriter {
	t.Helper()
	c, err := harness.ConnectAs(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return &topologyWriter{t: t, ctx: ctx, r: c.Dynamic.Resource(harness.NodeTopologies)}
}

func (w *topologyWriter) create(name string) error {
	o := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tandem.dev/v1alpha1", "kind": "NodeTopology",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"source": "e2e", "summary": map[string]any{"gpus": int64(0), "hcas": int64(0), "switches": int64(0)}},
	}}
	_, err := w.r.Create(w.ctx, o, metav1.CreateOptions{})
	return err
}

// update reads the object with the administrator's client and writes it back changed (the object, or
// with status its status subresource) as this writer.
func (w *topologyWriter) update(name string, status bool) error {
	o, err := cl.c.Dynamic.Resource(harness.NodeTopologies).Get(w.ctx, name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatalf("get NodeTopology %s: %v", name, err)
	}
	stamp := time.Now().UTC().Format(time.RFC3339)
	if status {
		o.Object["status"] = map[string]any{"observedAt": stamp}
		_, err = w.r.UpdateStatus(w.ctx, o, metav1.UpdateOptions{})
		return err
	}
	o.SetLabels(map[string]string{"tandem.dev/e2e-written": strings.ReplaceAll(stamp, ":", "")})
	_, err = w.r.Update(w.ctx, o, metav1.UpdateOptions{})
	return err
}

func (w *topologyWriter) delete(name string) error {
	return w.r.Delete(w.ctx, name, metav1.DeleteOptions{})
}
