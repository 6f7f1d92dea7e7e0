package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SecretMounts maps each mount path of a Secret volume of the first container of Deployment name
// (as installed) to the Secret's name.
func SecretMounts(docs []Doc, name string) (map[string]string, error) {
	for _, d := range docs {
		if d.Kind != "Deployment" || d.Name != name {
			continue
		}
		spec, _ := d.Obj["spec"].(map[string]any)
		tmpl, _ := spec["template"].(map[string]any)
		pspec, _ := tmpl["spec"].(map[string]any)
		secrets := map[string]string{}
		vols, _ := pspec["volumes"].([]any)
		for _, v := range vols {
			vm, _ := v.(map[string]any)
			if s, ok := vm["secret"].(map[string]any); ok {
				secrets[fmt.Sprint(vm["name"])] = fmt.Sprint(s["secretName"])
			}
		}
		cs, _ := pspec["containers"].([]any)
		if len(cs) == 0 {
			return nil, fmt.Errorf("%s: Deployment %s has no containers", d.File, name)
		}
		out := map[string]string{}
		mounts, _ := cs[0].(map[string]any)["volumeMounts"].([]any)
		for _, m := range mounts {
			mm, _ := m.(map[string]any)
			if s, ok := secrets[fmt.Sprint(mm["name"])]; ok {
				out[fmt.Sprint(mm["mountPath"])] = s
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("no Deployment %s in what was installed", name)
}

// WriteSecret writes each key of Secret ns/name, as the API server holds it, into dir/name/ (what
// the kubelet's Secret volume would show the container), and returns that directory.
func (c *Clients) WriteSecret(ctx context.Context, dir, ns, name string) (string, error) {
	s, err := c.Kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("secret %s/%s: %w", ns, name, err)
	}
	out := filepath.Join(dir, name)
	if err := os.MkdirAll(out, 0o700); err != nil {
		return "", err
	}
	for k, v := range s.Data {
		if err := os.WriteFile(filepath.Join(out, k), v, 0o600); err != nil {
			return "", err
		}
	}
	return out, nil
}

// PathMap rewrites in-pod paths (a mount path prefix) to local directories.
type PathMap map[string]string

// Rewrite replaces the longest mount path that prefixes s (as a whole path element) anywhere in s.
func (m PathMap) Rewrite(s string) string {
	best := ""
	for from := range m {
		if strings.Contains(s, from+"/") && len(from) > len(best) {
			best = from
		}
	}
	if best == "" {
		return s
	}
	return strings.ReplaceAll(s, best+"/", m[best]+"/")
}

// IssueCertificates makes the verbs' certificates as the installation does and returns where the
// Secrets the extender and the second scheduler mount are found locally. With kustomize, the
// certificate Job's own command (its args after the extender jar, run by jvm: the java command up
// to and including "-jar <jar>") runs here as the Job's ServiceAccount, so its Role is exercised
// too; the chart renders its Secrets itself. Then each Secret those Deployments mount is copied to
// dir/secrets, as the kubelet's Secret volumes would show them.
func (c *Clients) IssueCertificates(ctx context.Context, env *Env, docs []Doc, jvm []string) (PathMap, error) {
	if job, err := WorkloadContainer(docs, "Job", "tandem-certificates"); err == nil {
		kc, err := c.ServiceAccountKubeconfig(ctx, env, "tandem-system", "tandem-certificates")
		if err != nil {
			return nil, err
		}
		p, err := Start(env.Logs(), "certificates-job", []string{"KUBECONFIG=" + kc}, append(jvm, job.Args...)...)
		if err != nil {
			return nil, err
		}
		select {
		case <-p.Exited():
		case <-ctx.Done():
			p.Kill()
			return nil, fmt.Errorf("the certificate Job's command did not finish; see %s", p.Log)
		}
		if code := p.ExitCode(); code != 0 {
			return nil, fmt.Errorf("the certificate Job's command exited %d; see %s", code, p.Log)
		}
	}
	paths := PathMap{}
	for _, name := range []string{"tandem-scheduler-extender", "tandem-scheduler"} {
		mounts, err := SecretMounts(docs, name)
		if err != nil {
			continue // no second scheduler in this wiring
		}
		for mount, secret := range mounts {
			local, err := c.WriteSecret(ctx, filepath.Join(env.Dir, "secrets"), "tandem-system", secret)
			if err != nil {
				return nil, err
			}
			paths[mount] = local
		}
	}
	return paths, nil
}
