package main

import (
	"context"
	"encoding/json"
	"fmt"
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

// topologies dumps the hwloc export of each of the harness's machines (test-fixtures) with the agent jar.
func topologies(env *harness.Env) ([]topology, error) {
	var files []string
	for _, m := range harness.Machines {
		files = append(files, env.Topology(m.File))
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
		if err := harness.Eventually(ctx, 250*time.Millisecond, 60*time.Second, func(ctx context.Context) error {
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

func deepCopy(m map[string]any) map[string]any {
	raw, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}
