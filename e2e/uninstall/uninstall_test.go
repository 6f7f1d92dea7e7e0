//go:build e2e

package uninstall

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
)

// TestUninstallAsDocumented removes a kustomize installation with operations.md's commands and
// checks nothing of it is left. Deleting a namespace needs the namespace controller, so
// kube-controller-manager runs here with only that controller and the garbage collector.
func TestUninstallAsDocumented(t *testing.T) {
	if harness.InstallFromChart() {
		t.Skip("Tandem is installed from the chart in this run: TestChartUpgradeAndUninstall removes it")
	}
	installed(t)
	cm, err := harness.Start(env.Logs(), "kube-controller-manager", nil,
		filepath.Join(env.Bin, "kube-controller-manager"), "--kubeconfig", env.Kubeconfig,
		"--controllers=namespace,garbagecollector", "--leader-elect=false", "--secure-port=0", "--v=1")
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Stop(5 * time.Second)

	docCommand(t, "operations.md", "kubectl delete -k manifests/scheduler/second-scheduler",
		"delete", "-k", env.Path("manifests", "scheduler", "second-scheduler"), "--timeout=2m")
	docCommand(t, "operations.md", "kubectl delete -k manifests/",
		"delete", "-k", env.Path("manifests"), "--timeout=2m")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := clients.Kube.CoreV1().Namespaces().Get(ctx, "tandem-system", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace tandem-system still there after the uninstall (err %v)", err)
	}
	crds, err := env.Kubectl(nil, "get", "crd", "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(crds, "tandem.dev") {
		t.Errorf("Tandem's CRD is still installed:\n%s", crds)
	}
	for _, kind := range []string{"clusterroles", "clusterrolebindings"} {
		out, err := env.Kubectl(nil, "get", kind, "-o", "name")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "tandem") {
				t.Errorf("%s left after the uninstall", line)
			}
		}
	}
	if !cm.Running() {
		t.Errorf("kube-controller-manager exited early; see %s", cm.Log)
	}
}
