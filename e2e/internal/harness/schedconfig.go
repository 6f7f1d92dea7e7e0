package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// SchedulerConfig is the shipped KubeSchedulerConfiguration, found either as its own document or
// inside a ConfigMap under manifests/.
type SchedulerConfig struct {
	Source string
	Obj    map[string]any
}

// FindSchedulerConfig looks for the KubeSchedulerConfiguration that manifests/ ships.
func FindSchedulerConfig(docs []Doc) (*SchedulerConfig, error) {
	// The second scheduler's configuration is a complete one; the default-scheduler patch is an
	// excerpt to merge into an existing configuration.
	for _, pass := range []bool{true, false} {
		for _, d := range docs {
			if d.Kind == "KubeSchedulerConfiguration" && strings.Contains(d.File, "second-scheduler") == pass {
				return &SchedulerConfig{Source: d.File, Obj: d.Obj}, nil
			}
		}
	}
	for _, d := range docs {
		if d.Kind != "ConfigMap" {
			continue
		}
		data, _ := d.Obj["data"].(map[string]any)
		for key, v := range data {
			s, _ := v.(string)
			if !strings.Contains(s, "kind: KubeSchedulerConfiguration") {
				continue
			}
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(s), &obj); err != nil {
				return nil, fmt.Errorf("%s: ConfigMap %s key %s: %w", d.File, d.Name, key, err)
			}
			return &SchedulerConfig{Source: fmt.Sprintf("%s (ConfigMap %s, key %s)", d.File, d.Name, key), Obj: obj}, nil
		}
	}
	return nil, fmt.Errorf("no KubeSchedulerConfiguration under manifests/ (neither a document nor inside a ConfigMap)")
}

// SchedulerName is the first profile's schedulerName ("default-scheduler" when none is set).
func (c *SchedulerConfig) SchedulerName() string {
	if profiles, ok := c.Obj["profiles"].([]any); ok && len(profiles) > 0 {
		if p, ok := profiles[0].(map[string]any); ok {
			if n, ok := p["schedulerName"].(string); ok && n != "" {
				return n
			}
		}
	}
	return "default-scheduler"
}

// ExtenderPath is the path of the first extender's urlPrefix (e.g. /scheduler; "" at the root).
func (c *SchedulerConfig) ExtenderPath() string {
	exts, _ := c.Obj["extenders"].([]any)
	if len(exts) == 0 {
		return ""
	}
	m, _ := exts[0].(map[string]any)
	return strings.TrimRight(rebase(fmt.Sprint(m["urlPrefix"]), ""), "/")
}

// WriteForLoopback writes the configuration with each extender's urlPrefix pointed at extenderAddr
// (host:port; scheme and path as shipped) and its tlsConfig files at the local copies of the
// Secrets the scheduler's pod mounts (paths). serverName stays as shipped, so kube-scheduler checks
// the extender's certificate exactly as in a cluster. It also sets the kubeconfig path of the
// scheduler (in a cluster it uses its in-cluster ServiceAccount credentials, here a token of the
// same ServiceAccount). Everything else is kept as shipped, leader election included.
func (c *SchedulerConfig) WriteForLoopback(dir, extenderAddr, kubeconfig string, paths PathMap) (string, error) {
	obj := deepCopy(c.Obj)
	exts, _ := obj["extenders"].([]any)
	if len(exts) == 0 {
		return "", fmt.Errorf("%s: the KubeSchedulerConfiguration has no extenders", c.Source)
	}
	for _, e := range exts {
		m := e.(map[string]any)
		shipped := fmt.Sprint(m["urlPrefix"])
		scheme := "http"
		if i := strings.Index(shipped, "://"); i >= 0 {
			scheme = shipped[:i]
		}
		m["urlPrefix"] = rebase(shipped, scheme+"://"+extenderAddr)
		tc, _ := m["tlsConfig"].(map[string]any)
		for _, f := range []string{"certFile", "keyFile", "caFile"} {
			p, ok := tc[f].(string)
			if !ok {
				continue
			}
			local := paths.Rewrite(p)
			if local == p {
				return "", fmt.Errorf("%s: tlsConfig.%s %s is in no Secret the scheduler's Deployment mounts", c.Source, f, p)
			}
			tc[f] = local
		}
	}
	cc, _ := obj["clientConnection"].(map[string]any)
	if cc == nil {
		cc = map[string]any{}
	}
	cc["kubeconfig"] = kubeconfig
	obj["clientConnection"] = cc
	out, err := yaml.Marshal(obj)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "kube-scheduler-config.yaml")
	return path, os.WriteFile(path, out, 0o644)
}

// rebase keeps the path of the shipped URL (e.g. /scheduler) and replaces scheme, host and port.
func rebase(shipped, base string) string {
	path := ""
	if i := strings.Index(shipped, "://"); i >= 0 {
		rest := shipped[i+3:]
		if j := strings.Index(rest, "/"); j >= 0 {
			path = rest[j:]
		}
	}
	return strings.TrimRight(base, "/") + path
}

func deepCopy(m map[string]any) map[string]any {
	b, _ := yaml.Marshal(m)
	var out map[string]any
	_ = yaml.Unmarshal(b, &out)
	return out
}
