package check

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// helmTemplate renders one template of the chart with a values file of charts/tandem/ci ("" for the
// defaults) by helm template.
func helmTemplate(t *testing.T, values, template string) []byte {
	t.Helper()
	repo := filepath.Dir(ManifestsDir())
	helmBin, err := exec.Command(filepath.Join(repo, "charts", "check", "helm-bin")).Output()
	if err != nil {
		t.Fatalf("charts/check/helm-bin: %v", err)
	}
	args := []string{"template", "tandem", filepath.Join(repo, "charts", "tandem"), "--namespace", "tandem-system", "--show-only", template}
	if values != "" {
		args = append(args, "--values", filepath.Join(repo, "charts", "tandem", "ci", values))
	}
	out, err := exec.Command(strings.TrimSpace(string(helmBin)), args...).Output()
	if err != nil {
		t.Fatalf("helm %v: %v", args, err)
	}
	return out
}

// The second scheduler's configuration as the Helm chart renders it — plain HTTP (the same as
// kustomize's, charts/check compares them), HTTPS to the extender, another HCA resource name — is
// accepted by kube-scheduler's strict decoder and validation. helm is the binary charts/check/helm-bin
// builds from helm.sh/helm/v3 (cached).
func TestChartSchedulerConfigurationsAreValid(t *testing.T) {
	for _, c := range []struct {
		values      string
		https       bool
		hcaResource string
	}{{"", true, "rdma/hca"}, {"tls-values.yaml", true, "rdma/hca"}, {"mode-shared-values.yaml", true, "rdma/shared_hca"}, {"tls-cert-manager-values.yaml", true, "rdma/hca"}} {
		out := helmTemplate(t, c.values, "templates/second-scheduler.yaml")
		var data string
		for _, doc := range strings.Split(string(out), "\n---\n") {
			var o struct {
				Kind string
				Data map[string]string
			}
			if err := yaml.Unmarshal([]byte(doc), &o); err == nil && o.Kind == "ConfigMap" {
				data = o.Data["kube-scheduler-config.yaml"]
			}
		}
		cfg, err := LoadSchedulerConfig([]byte(data))
		if err != nil {
			t.Fatalf("%s: kube-scheduler rejects the chart's configuration: %v\n%s", c.values, err, data)
		}
		e := cfg.Extenders[0]
		if e.EnableHTTPS != c.https || strings.HasPrefix(e.URLPrefix, "https://") != c.https {
			t.Errorf("%s: enableHTTPS %v, urlPrefix %s", c.values, e.EnableHTTPS, e.URLPrefix)
		}
		if c.https && (e.TLSConfig == nil || e.TLSConfig.CAFile != "/etc/tandem-scheduler-tls/ca.crt" || e.TLSConfig.ServerName != "tandem-scheduler-extender.tandem-system.svc" ||
			e.TLSConfig.CertFile != "/etc/tandem-scheduler-tls/tls.crt" || e.TLSConfig.KeyFile != "/etc/tandem-scheduler-tls/tls.key") {
			t.Errorf("%s: tlsConfig %+v", c.values, e.TLSConfig)
		}
		if e.ManagedResources[1].Name != c.hcaResource {
			t.Errorf("%s: managedResources %+v", c.values, e.ManagedResources)
		}
	}
}
