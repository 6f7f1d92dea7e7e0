//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"tandem.dev/e2e/internal/harness"
)

// applyManifests proves every API object under manifests/ passes the API server's own validation
// (kubectl apply --server-side --dry-run=server, file by file), then installs Tandem for real
// (harness.Env.Install: manifests/ and the second scheduler, or the chart). Deployments and
// DaemonSets create nothing here: there is no controller manager; the harness runs the programs itself.
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
	// The stand-in CRDs, then namespaces and CRDs, for real: other objects can only be validated once
	// they exist.
	if err := k.env.ApplyStandInCRDs(); err != nil {
		return err
	}
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
	for _, kdir := range []string{"", "scheduler/second-scheduler", "scheduler/default-scheduler-patch", "overlays/joint", "overlays/nccl-topology", "overlays/dra", "overlays/dra-joint", "monitoring"} {
		if _, err := k.env.Kubectl(nil, "apply", "--server-side", "--dry-run=server", "--field-manager=tandem-e2e", "-k", filepath.Join(dir, kdir)); err != nil {
			failures = append(failures, fmt.Sprintf("kustomization manifests/%s: %v", kdir, err))
		}
	}
	if len(failures) > 0 {
		return fmt.Errorf("server-side dry-run rejected manifests:\n%s", strings.Join(failures, "\n"))
	}
	// Installed the way docs/install.md leads with (helm install, with E2E_INSTALL=chart) or with
	// kustomize; the dry-run above created the kustomize CRD for real, which a helm install replaces.
	if k.installed, err = k.env.Install(); err != nil {
		return err
	}
	if harness.InstallFromChart() {
		fmt.Fprintf(os.Stderr, "e2e: installed from charts/tandem with helm install (%d objects)\n", len(k.installed))
	}
	if os.Getenv("E2E_LEASE_PATCH_WORKAROUND") == "1" {
		// Local debugging only, never in CI: fabric8's leader elector renews the Lease with PATCH,
		// which manifests/base/rbac-scheduler-extender.yaml does not grant (get, update only).
		fmt.Fprintln(os.Stderr, "e2e: WORKAROUND granting patch on leases to tandem-scheduler-extender (E2E_LEASE_PATCH_WORKAROUND=1)")
		if _, err := k.env.Kubectl([]byte(leasePatchWorkaround), "apply", "--server-side", "-f", "-"); err != nil {
			return err
		}
	}
	return nil
}

const leasePatchWorkaround = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: e2e-workaround-lease-patch, namespace: tandem-system}
rules:
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: e2e-workaround-lease-patch, namespace: tandem-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: e2e-workaround-lease-patch}
subjects:
- {kind: ServiceAccount, name: tandem-scheduler-extender, namespace: tandem-system}
`
