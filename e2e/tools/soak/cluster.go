package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"tandem.dev/e2e/internal/harness"
)

// topology is one fixture's NodeTopology as the real agent prints it (`dump --hwloc-xml`).
type topology struct {
	short      string
	gpus, hcas int
	obj        map[string]any
}

// topologies dumps every hwloc fixture of e2e/testdata/topologies with the agent jar.
func topologies(env *harness.Env) ([]topology, error) {
	files, err := filepath.Glob(filepath.Join(env.Testdata("topologies"), "*.xml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no hwloc fixtures in %s (%v)", env.Testdata("topologies"), err)
	}
	sort.Strings(files)
	var out []topology
	for _, f := range files {
		raw, err := exec.Command(env.Java, "-jar", env.Jar("node-topology-agent"), "dump", "--hwloc-xml", f).Output()
		if err != nil {
			return nil, fmt.Errorf("node-topology-agent dump --hwloc-xml %s: %w", f, err)
		}
		var obj map[string]any
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("dump of %s is not JSON: %w", f, err)
		}
		var s struct {
			Spec struct{ Summary struct{ GPUs, HCAs int } }
		}
		_ = json.Unmarshal(raw, &s)
		delete(obj, "status")
		out = append(out, topology{short: strings.SplitN(filepath.Base(f), "-", 3)[1], gpus: s.Spec.Summary.GPUs, hcas: s.Spec.Summary.HCAs, obj: obj})
	}
	return out, nil
}

// createNodes creates n Ready Nodes cycling through the fixtures, each with its NodeTopology as the
// agent would publish it, and returns their names.
func createNodes(ctx context.Context, c *harness.Clients, tops []topology, n int) ([]string, error) {
	var names []string
	for i := 0; i < n; i++ {
		t := tops[i%len(tops)]
		name := fmt.Sprintf("soak-%03d-%s", i, t.short)
		if err := c.CreateNode(ctx, harness.NodeSpec{Name: name, GPUs: t.gpus, HCAs: t.hcas}); err != nil {
			return nil, err
		}
		obj := deepCopy(t.obj)
		obj["metadata"] = map[string]any{"name": name}
		if err := retry(ctx, 60*time.Second, func() error {
			_, err := c.Dynamic.Resource(harness.NodeTopologies).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
			return err
		}); err != nil {
			return nil, fmt.Errorf("create NodeTopology %s: %w", name, err)
		}
		names = append(names, name)
	}
	return names, nil
}

// extenderProcess runs the real extender jar with the shipped Deployment's arguments and JVM options
// (manifests/base), port and host moved to loopback, as its ServiceAccount; maxRAM stands for the
// container's memory limit, which the Deployment's -XX:MaxRAMPercentage is a share of.
// Without tls the shipped certificate flags are left out and the verbs are plain HTTP
// (--insecure-verbs); with it, extra carries the certificate flags. The inspection listener
// (/readyz, /metrics) answers plain HTTP on the second port returned.
func extenderProcess(ctx context.Context, env *harness.Env, c *harness.Clients, maxRAM string, tls bool, extra []string) (*harness.Proc, int, int, error) {
	docs, err := harness.ReadManifests(env.Path("manifests", "base"))
	if err != nil {
		return nil, 0, 0, err
	}
	container, err := harness.DeploymentContainer(docs, "tandem-scheduler-extender")
	if err != nil {
		return nil, 0, 0, err
	}
	args, vars := container.Args, container.Env
	kc, err := c.ServiceAccountKubeconfig(ctx, env, "tandem-system", "tandem-scheduler-extender")
	if err != nil {
		return nil, 0, 0, err
	}
	port, inspection := harness.FreePort(), harness.FreePort()
	argv := []string{env.Java, "-jar", env.Jar("scheduler-extender")}
	for _, a := range args {
		if !hasAnyPrefix(a, "--port", "--host", "--inspection-port", "--tls-cert", "--tls-key", "--client-ca") {
			argv = append(argv, a)
		}
	}
	argv = append(argv, fmt.Sprintf("--port=%d", port), fmt.Sprintf("--inspection-port=%d", inspection), "--host=127.0.0.1")
	if !tls {
		argv = append(argv, "--insecure-verbs")
	}
	argv = append(argv, extra...)
	procEnv := []string{"KUBECONFIG=" + kc, "POD_NAME=soak-extender", "POD_NAMESPACE=tandem-system",
		"JAVA_TOOL_OPTIONS=" + vars["JAVA_TOOL_OPTIONS"] + " -XX:MaxRAM=" + maxRAM}
	p, err := harness.Start(env.Logs(), "extender", procEnv, argv...)
	return p, port, inspection, err
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// waitReady waits for url to answer 200 while p runs.
func waitReady(ctx context.Context, p *harness.Proc, client *http.Client, url string) error {
	return retry(ctx, 120*time.Second, func() error {
		if !p.Running() {
			return fmt.Errorf("the extender exited; see %s", p.Log)
		}
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
		}
		return nil
	})
}

// retry runs f every 250 ms until it succeeds or limit passes.
func retry(ctx context.Context, limit time.Duration, f func() error) error {
	deadline := time.Now().Add(limit)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func deepCopy(m map[string]any) map[string]any {
	raw, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}
