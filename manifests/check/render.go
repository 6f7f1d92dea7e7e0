// Package check renders Tandem's kustomizations with the real kustomize (krusty) and checks what
// comes out: kinds per component, typed decoding, and the kube-scheduler configurations.
package check

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sort"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// ManifestsDir is the absolute path of manifests/ (this file lives in manifests/check).
func ManifestsDir() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(self))
}

// Render builds the kustomization in manifests/<rel> exactly as `kubectl apply -k` would
// (default options: load restrictions to the kustomization root).
func Render(rel string) ([]*resource.Resource, error) {
	dir := filepath.Join(ManifestsDir(), rel)
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	return m.Resources(), nil
}

// Component names the Tandem component an object belongs to: its app.kubernetes.io/name label,
// else its own name (the Namespace and the CRD).
func Component(r *resource.Resource) string {
	if c, ok := r.GetLabels()["app.kubernetes.io/name"]; ok {
		return c
	}
	return r.GetName()
}

// Inventory lists "component kind" once per object, sorted.
func Inventory(rs []*resource.Resource) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, Component(r)+" "+r.GetKind())
	}
	sort.Strings(out)
	return out
}
