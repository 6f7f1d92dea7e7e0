package harness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"sigs.k8s.io/yaml"
)

// InstallFromChart is true when e2e/run was asked to install Tandem with `helm install` from
// charts/tandem instead of `kubectl apply -k manifests/` (E2E_INSTALL=chart).
func InstallFromChart() bool { return os.Getenv("E2E_INSTALL") == "chart" }

// Helm runs the helm binary e2e/run built from helm.sh/helm/v3 (E2E_HELM) against the admin
// kubeconfig and returns its standard output.
func (e *Env) Helm(args ...string) (string, error) {
	bin := os.Getenv("E2E_HELM")
	if bin == "" {
		return "", fmt.Errorf("E2E_HELM is not set: run the scenarios with e2e/run")
	}
	cmd := exec.Command(bin, append([]string{"--kubeconfig", e.Kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+e.Dir+"/helm/cache", "HELM_CONFIG_HOME="+e.Dir+"/helm/config", "HELM_DATA_HOME="+e.Dir+"/helm/data")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// ParseStream splits a rendered multi-document stream (helm template, helm get manifest) into Docs
// whose File is source plus the template named in Helm's "# Source:" comment.
func ParseStream(source, stream string) ([]Doc, error) {
	var docs []Doc
	for _, part := range docSep.Split(stream, -1) {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(part), &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		if len(obj) == 0 {
			continue
		}
		file := source
		for _, line := range strings.Split(part, "\n") {
			if strings.HasPrefix(line, "# Source: ") {
				file = source + ":" + strings.TrimPrefix(line, "# Source: ")
				break
			}
		}
		kind, _ := obj["kind"].(string)
		name := ""
		if md, ok := obj["metadata"].(map[string]any); ok {
			name, _ = md["name"].(string)
		}
		docs = append(docs, Doc{File: file, Kind: kind, Name: name, Body: []byte(part), Obj: obj})
	}
	return docs, nil
}

// K8sVersion is the Kubernetes release of the binaries (E2E_K8S_VERSION, from e2e/go.mod).
func (e *Env) K8sVersion() string {
	if v := os.Getenv("E2E_K8S_VERSION"); v != "" {
		return v
	}
	return "v1.37.2"
}
