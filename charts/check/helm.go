// Package check tests charts/tandem: helm lint and helm template over a matrix of values (the helm
// binary built from helm.sh/helm/v3 by ./run), the values schema, the chart's equivalence with the
// kustomize manifests, and the alert rules and the dashboard with Prometheus' own PromQL parser.
package check

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// KubeVersion is the Kubernetes version charts are rendered for: the release e2e/go.mod pins.
const KubeVersion = "v1.37.2"

// Namespace is the namespace the kustomize manifests use.
const Namespace = "tandem-system"

// Repo is the repository root (this file lives in charts/check).
func Repo() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(self)))
}

// Chart is charts/tandem.
func Chart() string { return filepath.Join(Repo(), "charts", "tandem") }

// Helm runs the helm binary ($HELM, set by ./run) and returns stdout, or stderr in the error.
func Helm(args ...string) (string, error) {
	bin := os.Getenv("HELM")
	if bin == "" {
		return "", fmt.Errorf("HELM is not set: run charts/check/run, which builds helm from helm.sh/helm/v3")
	}
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("helm %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// Object is one rendered API object as generic JSON data.
type Object = map[string]any

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// SplitYAML parses a multi-document YAML stream into objects (empty documents dropped).
func SplitYAML(s string) ([]Object, error) {
	var out []Object
	for _, part := range docSep.Split(s, -1) {
		var o Object
		if err := yaml.Unmarshal([]byte(part), &o); err != nil {
			return nil, fmt.Errorf("%w in\n%s", err, part)
		}
		if len(o) > 0 {
			out = append(out, o)
		}
	}
	return out, nil
}

// Template renders the chart as `helm template tandem charts/tandem -n tandem-system` with the given
// values files and extra flags.
func Template(valueFiles []string, extra ...string) (string, error) {
	args := []string{"template", "tandem", Chart(), "--namespace", Namespace, "--kube-version", KubeVersion}
	for _, f := range valueFiles {
		args = append(args, "--values", f)
	}
	return Helm(append(args, extra...)...)
}

// Key names an object: kind, namespace and name.
func Key(o Object) string {
	md, _ := o["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	kind, _ := o["kind"].(string)
	return kind + " " + ns + "/" + name
}

// Keys lists the objects' keys, sorted.
func Keys(objs []Object) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, Key(o))
	}
	sort.Strings(out)
	return out
}

// Find returns the object with the given kind and name.
func Find(objs []Object, kind, name string) Object {
	for _, o := range objs {
		md, _ := o["metadata"].(map[string]any)
		if o["kind"] == kind && md["name"] == name {
			return o
		}
	}
	return nil
}
