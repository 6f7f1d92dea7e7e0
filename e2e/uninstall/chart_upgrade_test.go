//go:build e2e

package uninstall

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"tandem.dev/e2e/internal/harness"
)

// After an install from the chart (E2E_INSTALL=chart): install.md's helm upgrade and helm uninstall.
// The upgrade changes a value (the PodDisruptionBudget goes); the uninstall removes the release's
// objects but keeps the CRD (helm.sh/resource-policy: keep) and with it every NodeTopology.
func TestChartUpgradeAndUninstall(t *testing.T) {
	if !harness.InstallFromChart() {
		t.Skip("Tandem is installed with kustomize in this run (E2E_INSTALL=chart installs it from the chart)")
	}
	installed(t)
	ctx := context.Background()
	chart := env.Path("charts", "tandem")
	// A NodeTopology of the test's own, as an agent publishes one: the uninstall must keep it.
	kept := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tandem.dev/v1alpha1", "kind": "NodeTopology",
		"metadata": map[string]any{"name": "chart-uninstall-keeps-me"},
		"spec":     map[string]any{"source": "e2e", "summary": map[string]any{"gpus": int64(0), "hcas": int64(0), "switches": int64(0)}},
	}}
	if _, err := clients.Dynamic.Resource(harness.NodeTopologies).Create(ctx, kept, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// helm install asked the API server which APIs it serves: with the (stand-in) Prometheus Operator
	// CRDs there, the release has its ServiceMonitor, PodMonitor and PrometheusRule.
	for _, kind := range []string{"servicemonitor/tandem-scheduler-extender", "podmonitor/tandem-node-topology-agent", "prometheusrule/tandem"} {
		if out, err := env.Kubectl(nil, "-n", "tandem-system", "get", kind, "-o", "name"); err != nil {
			t.Errorf("helm install did not create %s: %v %s", kind, err, out)
		}
	}
	docHelm(t, "install.md", "helm upgrade tandem charts/tandem --namespace tandem-system --reuse-values",
		"upgrade", "tandem", chart, "--namespace", "tandem-system", "--reuse-values", "--set", "extender.podDisruptionBudget.enabled=false")
	if _, err := clients.Kube.PolicyV1().PodDisruptionBudgets("tandem-system").Get(ctx, "tandem-scheduler-extender", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after helm upgrade with the PDB off, the PDB is still there (err %v)", err)
	}
	hist, err := env.Helm("history", "tandem", "--namespace", "tandem-system")
	if err != nil || !strings.Contains(hist, "Upgrade complete") {
		t.Errorf("helm history after the upgrade: %v\n%s", err, hist)
	}
	docHelm(t, "install.md", "helm uninstall tandem --namespace tandem-system", "uninstall", "tandem", "--namespace", "tandem-system")
	if _, err := clients.Kube.RbacV1().ClusterRoles().Get(ctx, "tandem-scheduler-extender", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("ClusterRole tandem-scheduler-extender survived helm uninstall (err %v)", err)
	}
	if _, err := clients.Kube.AppsV1().Deployments("tandem-system").Get(ctx, "tandem-scheduler", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Deployment tandem-scheduler survived helm uninstall (err %v)", err)
	}
	out, err := env.Kubectl(nil, "get", "crd", "nodetopologies.tandem.dev", "-o", "name")
	if err != nil || !strings.Contains(out, "nodetopologies.tandem.dev") {
		t.Errorf("the CRD did not survive helm uninstall (keep policy): %v %s", err, out)
	}
	if _, err := clients.Dynamic.Resource(harness.NodeTopologies).Get(ctx, kept.GetName(), metav1.GetOptions{}); err != nil {
		t.Errorf("NodeTopology %s did not survive helm uninstall: %v", kept.GetName(), err)
	}
}
