package check

import (
	"fmt"
	"path/filepath"
	"regexp"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Kustomize builds manifests/<rel> with the real kustomize (krusty, default options: what
// `kubectl apply -k` does) and returns the objects.
func Kustomize(rel string) ([]Object, error) {
	dir := filepath.Join(Repo(), "manifests", rel)
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var out []Object
	for _, r := range m.Resources() {
		y, err := r.AsYAML()
		if err != nil {
			return nil, err
		}
		var o Object
		if err := yaml.Unmarshal(y, &o); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// helmOnlyLabels are the bookkeeping labels Helm charts add to their objects' metadata (never to
// selectors or pod templates); the kustomize manifests do not carry them.
var helmOnlyLabels = []string{"app.kubernetes.io/instance", "app.kubernetes.io/managed-by", "helm.sh/chart"}

// generatedSuffix is the content hash kustomize's configMapGenerator appends to a ConfigMap's name.
var generatedSuffix = regexp.MustCompile(`^(tandem-scheduler-config)-[a-z0-9]{10}$`)

// Normalize removes exactly the differences between the two ways of installing that are intended:
//   - Helm's bookkeeping labels in metadata.labels and the CRD's helm.sh/resource-policy annotation
//     (the chart keeps the CRD on uninstall);
//   - kustomize's hash suffix on the generated scheduler ConfigMap, and the chart's checksum/config
//     annotation on the scheduler's pod template: two ways of rolling the scheduler when its
//     configuration changes;
//   - ConfigMap data holding YAML or JSON is compared as data, not text (comments and key order).
func Normalize(o Object) Object {
	md, _ := o["metadata"].(map[string]any)
	if labels, ok := md["labels"].(map[string]any); ok {
		for _, l := range helmOnlyLabels {
			delete(labels, l)
		}
		if len(labels) == 0 {
			delete(md, "labels")
		}
	}
	if ann, ok := md["annotations"].(map[string]any); ok {
		delete(ann, "helm.sh/resource-policy")
		if len(ann) == 0 {
			delete(md, "annotations")
		}
	}
	if name, _ := md["name"].(string); generatedSuffix.MatchString(name) {
		md["name"] = generatedSuffix.ReplaceAllString(name, "$1")
	}
	if o["kind"] == "Deployment" {
		spec, _ := o["spec"].(map[string]any)
		tmpl, _ := spec["template"].(map[string]any)
		tmd, _ := tmpl["metadata"].(map[string]any)
		if ann, ok := tmd["annotations"].(map[string]any); ok {
			delete(ann, "checksum/config")
			if len(ann) == 0 {
				delete(tmd, "annotations")
			}
		}
		pspec, _ := tmpl["spec"].(map[string]any)
		vols, _ := pspec["volumes"].([]any)
		for _, v := range vols {
			if cm, ok := v.(map[string]any)["configMap"].(map[string]any); ok {
				if n, _ := cm["name"].(string); generatedSuffix.MatchString(n) {
					cm["name"] = generatedSuffix.ReplaceAllString(n, "$1")
				}
			}
		}
	}
	if o["kind"] == "ConfigMap" {
		data, _ := o["data"].(map[string]any)
		for k, v := range data {
			s, _ := v.(string)
			var parsed any
			if err := yaml.Unmarshal([]byte(s), &parsed); err == nil && parsed != nil {
				if _, isMap := parsed.(map[string]any); isMap {
					data[k] = parsed
				}
			}
		}
	}
	return o
}
