//go:build e2e

package scenarios

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
)

// After a run installed from the chart (E2E_INSTALL=chart): install.md's helm upgrade and helm
// uninstall. The upgrade changes a value (the PodDisruptionBudget goes); the uninstall removes the
// release's objects but keeps the CRD (helm.sh/resource-policy: keep) and with it every NodeTopology.
// Runs last: the components lose their ServiceAccounts.
func TestChartUpgradeAndUninstall(t *testing.T) {
	if !harness.InstallFromChart() {
		t.Skip("Tandem was installed with kustomize in this run (E2E_INSTALL=chart installs it from the chart)")
	}
	ctx := context.Background()
	chart := cl.env.Path("charts", "tandem")
	// helm install asked the API server which APIs it serves: with the (stand-in) Prometheus Operator
	// CRDs there, the release has its ServiceMonitor, PodMonitor and PrometheusRule.
	for _, kind := range []string{"servicemonitor/tandem-scheduler-extender", "podmonitor/tandem-node-topology-agent", "prometheusrule/tandem"} {
		if out, err := cl.env.Kubectl(nil, "-n", "tandem-system", "get", kind, "-o", "name"); err != nil {
			t.Errorf("helm install did not create %s: %v %s", kind, err, out)
		}
	}
	cl.docHelm(t, "helm upgrade tandem charts/tandem --namespace tandem-system --reuse-values",
		"upgrade", "tandem", chart, "--namespace", "tandem-system", "--reuse-values", "--set", "extender.podDisruptionBudget.enabled=false")
	if _, err := cl.c.Kube.PolicyV1().PodDisruptionBudgets("tandem-system").Get(ctx, "tandem-scheduler-extender", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after helm upgrade with the PDB off, the PDB is still there (err %v)", err)
	}
	hist, err := cl.env.Helm("history", "tandem", "--namespace", "tandem-system")
	if err != nil || !strings.Contains(hist, "Upgrade complete") {
		t.Errorf("helm history after the upgrade: %v\n%s", err, hist)
	}
	cl.stopAll()
	cl.docHelm(t, "helm uninstall tandem --namespace tandem-system", "uninstall", "tandem", "--namespace", "tandem-system")
	if _, err := cl.c.Kube.RbacV1().ClusterRoles().Get(ctx, "tandem-scheduler-extender", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("ClusterRole tandem-scheduler-extender survived helm uninstall (err %v)", err)
	}
	if _, err := cl.c.Kube.AppsV1().Deployments("tandem-system").Get(ctx, "tandem-scheduler", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Deployment tandem-scheduler survived helm uninstall (err %v)", err)
	}
	out, err := cl.env.Kubectl(nil, "get", "crd", "nodetopologies.tandem.dev", "-o", "name")
	if err != nil || !strings.Contains(out, "nodetopologies.tandem.dev") {
		t.Errorf("the CRD did not survive helm uninstall (keep policy): %v %s", err, out)
	}
	out, err = cl.env.Kubectl(nil, "get", "nodetopologies", "-o", "name")
	if err != nil || !strings.Contains(out, "nodetopology") {
		t.Errorf("the NodeTopologies did not survive helm uninstall: %v %s", err, out)
	}
}

// docHelm runs a helm command that docs/install.md shows (template must appear there verbatim).
func (k *cluster) docHelm(t *testing.T, template string, args ...string) {
	t.Helper()
	text, err := readDoc(k, "install.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, template) {
		t.Fatalf("docs/install.md no longer shows %q: update this test with the docs", template)
	}
	if out, err := k.env.Helm(args...); err != nil {
		t.Fatalf("%s: %v\n%s", template, err, out)
	}
}
