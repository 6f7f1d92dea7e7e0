//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"tandem.dev/e2e/internal/harness"
)

// applyManifests proves every API object under manifests/ passes the API server's own validation
// (kubectl apply --server-side --dry-run=server, file by file), then installs the CRD, the base and the
// second scheduler's RBAC for real. Deployments and DaemonSets create nothing here: there is no
// controller manager; the harness runs the programs itself.
func (k *cluster) applyManifests(ctx context.Context) error {
	dir := k.env.Path("manifests")
	docs, err := harness.ReadManifests(dir)
	if err != nil {
		return err
	}
	objs := harness.APIObjects(docs)
	if len(objs) == 0 {
		return fmt.Errorf("no API objects under %s", dir)
	}
	// Namespaces and CRDs first, for real: other objects can only be validated once they exist.
	var first []harness.Doc
	for _, d := range objs {
		if d.Kind == "Namespace" || d.Kind == "CustomResourceDefinition" {
			first = append(first, d)
		}
	}
	if _, err := k.env.Kubectl(harness.Join(first), "apply", "--server-side", "--field-manager=tandem-e2e", "-f", "-"); err != nil {
		return err
	}
	if _, err := k.env.Kubectl(nil, "wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"); err != nil {
		return err
	}
	byFile := map[string][]harness.Doc{}
	var files []string
	for _, d := range objs {
		if _, seen := byFile[d.File]; !seen {
			files = append(files, d.File)
		}
		byFile[d.File] = append(byFile[d.File], d)
	}
	var failures []string
	for _, f := range files {
		if _, err := k.env.Kubectl(harness.Join(byFile[f]), "apply", "--server-side", "--dry-run=server", "--field-manager=tandem-e2e", "-f", "-"); err != nil {
			rel, _ := filepath.Rel(k.env.Repo, f)
			failures = append(failures, fmt.Sprintf("%s: %v", rel, err))
		}
	}
	for _, kdir := range []string{"", "scheduler/second-scheduler", "scheduler/default-scheduler-patch"} {
		if _, err := k.env.Kubectl(nil, "apply", "--server-side", "--dry-run=server", "--field-manager=tandem-e2e", "-k", filepath.Join(dir, kdir)); err != nil {
			failures = append(failures, fmt.Sprintf("kustomization manifests/%s: %v", kdir, err))
		}
	}
	if len(failures) > 0 {
		return fmt.Errorf("server-side dry-run rejected manifests:\n%s", strings.Join(failures, "\n"))
	}
	for _, kdir := range []string{"", "scheduler/second-scheduler"} {
		if _, err := k.env.Kubectl(nil, "apply", "--server-side", "--field-manager=tandem-e2e", "-k", filepath.Join(dir, kdir)); err != nil {
			return err
		}
	}
	return nil
}
