package harness

import (
	"fmt"
	"os"
	"path/filepath"
)

// ApplyStandInCRDs creates the stand-ins of the Prometheus Operator's and cert-manager's CRDs
// (e2e/testdata/crds: their groups and kinds, any spec): manifests/monitoring and the chart's
// monitoring and cert-manager objects need their API to exist, and Helm renders the monitoring
// objects only where the API server serves it. Idempotent (server-side apply).
func (e *Env) ApplyStandInCRDs() error {
	for _, f := range []string{"monitoring.coreos.com.yaml", "cert-manager.io.yaml"} {
		stand, err := os.ReadFile(e.Testdata(filepath.Join("crds", f)))
		if err != nil {
			return err
		}
		if _, err := e.Kubectl(stand, "apply", "--server-side", "--field-manager=tandem-e2e", "-f", "-"); err != nil {
			return err
		}
	}
	return nil
}

// Install installs Tandem as docs/install.md does, unless it is installed already, and returns the
// objects installed: `kubectl apply -k` of manifests/ and manifests/scheduler/second-scheduler
// (server-side, so applying again changes nothing), or, with E2E_INSTALL=chart, `helm install tandem
// charts/tandem` with its defaults (the second scheduler) when there is no release tandem yet. Helm
// asks this API server which APIs it serves, so with the stand-in monitoring CRDs the release has its
// ServiceMonitor, PodMonitor and PrometheusRule too.
func (e *Env) Install() ([]Doc, error) {
	if err := e.ApplyStandInCRDs(); err != nil {
		return nil, err
	}
	if !InstallFromChart() {
		for _, dir := range []string{"", "scheduler/second-scheduler"} {
			if _, err := e.Kubectl(nil, "apply", "--server-side", "--field-manager=tandem-e2e", "-k", e.Path("manifests", dir)); err != nil {
				return nil, err
			}
		}
		return ReadManifests(e.Path("manifests"))
	}
	if _, err := e.Helm("status", "tandem", "--namespace", "tandem-system"); err != nil {
		// Helm does not adopt objects it did not create (install.md, "From kustomize to Helm"): a CRD
		// applied with kubectl goes first.
		if _, err := e.Kubectl(nil, "delete", "crd", "nodetopologies.tandem.dev", "--ignore-not-found", "--timeout=60s"); err != nil {
			return nil, err
		}
		if _, err := e.Helm("install", "tandem", e.Path("charts", "tandem"), "--namespace", "tandem-system", "--create-namespace"); err != nil {
			return nil, err
		}
	}
	out, err := e.Helm("get", "manifest", "tandem", "--namespace", "tandem-system")
	if err != nil {
		return nil, err
	}
	docs, err := ParseStream("helm release tandem", out)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("helm release tandem has no objects")
	}
	return docs, nil
}
