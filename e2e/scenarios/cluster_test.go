//go:build e2e

// Package scenarios runs Tandem's real jars against a real kube-apiserver and kube-scheduler.
// Run it with e2e/run, which builds the upstream binaries and starts the control plane.
package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem.dev/e2e/internal/harness"
)

// fixture is an hwloc export the agent reads, and the device counts the fake node advertises.
type fixture struct {
	file       string
	gpus, hcas int
}

var (
	xe8640 = fixture{"dell-poweredge-xe8640-h100x4.xml", 4, 4}
	relion = fixture{"penguin-relion-x1904gt-p100x2.xml", 2, 1}
	lassen = fixture{"ibm-ac922-lassen-v100x4.xml", 4, 4}
	sl390s = fixture{"hp-proliant-sl390s-g7-m2070x3.xml", 3, 1}
)

// cluster is the state shared by all scenarios: one control plane, Tandem's components around it.
type cluster struct {
	env       *harness.Env
	c         *harness.Clients
	schedName string
	installed []harness.Doc    // what was installed: the manifests/ documents, or the chart's release
	service   *harness.Service // the extender Service (routes to the ready replica)

	mu        sync.Mutex
	extenders map[string]*harness.Proc // by replica name
	extPorts  map[string]int           // verbs port by replica name
	inspPorts map[string]int           // inspection port by replica name
	extKC     string
	paths     harness.PathMap          // mount paths of the installed Secrets -> their local copies
	agents    map[string]*harness.Proc // by node name
	scheduler *harness.Proc
}

var cl *cluster

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: set-up failed: %v\n", err)
		code = 1
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	env, err := harness.LoadEnv()
	if err != nil {
		return 1, err
	}
	c, err := env.Connect()
	if err != nil {
		return 1, err
	}
	cl = &cluster{env: env, c: c, extenders: map[string]*harness.Proc{}, extPorts: map[string]int{}, inspPorts: map[string]int{}, agents: map[string]*harness.Proc{}}
	defer cl.stopAll()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := cl.setUp(ctx); err != nil {
		return 1, err
	}
	return m.Run(), nil
}

func (k *cluster) setUp(ctx context.Context) error {
	t0 := time.Now()
	step := func(name string, f func(context.Context) error) error {
		s := time.Now()
		if err := f(ctx); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(os.Stderr, "e2e: %s (%.1f s)\n", name, time.Since(s).Seconds())
		return nil
	}
	if err := step("manifests applied", k.applyManifests); err != nil {
		return err
	}
	if err := step("credentials of the components issued", k.credentials); err != nil {
		return err
	}
	if err := step("certificates issued by the certificate Job's command", k.certificates); err != nil {
		return err
	}
	if err := step("extender replica started", func(ctx context.Context) error { return k.startExtenders(ctx, "extender-0") }); err != nil {
		return err
	}
	if err := step("kube-scheduler started", k.startScheduler); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "e2e: set-up done in %.1f s\n", time.Since(t0).Seconds())
	return nil
}

func (k *cluster) stopAll() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.scheduler.Stop(5 * time.Second)
	for _, p := range k.extenders {
		p.Stop(5 * time.Second)
	}
	var wg sync.WaitGroup
	for node, p := range k.agents {
		wg.Add(1)
		go func(node string, p *harness.Proc) {
			defer wg.Done()
			p.Stop(5 * time.Second)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := k.c.DeletePodNow(ctx, "tandem-system", agentPodName(node)); err != nil {
				fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
			}
		}(node, p)
	}
	wg.Wait()
	k.agents = map[string]*harness.Proc{}
	if k.service != nil {
		k.service.Close()
		k.service = nil // stopAll may run twice: the uninstall scenario stops everything first
	}
}

func (k *cluster) credentials(ctx context.Context) error {
	var err error
	k.extKC, err = k.c.ServiceAccountKubeconfig(ctx, k.env, "tandem-system", "tandem-scheduler-extender")
	return err
}

// javaArgs keeps the JVMs small: many agents run at once on a 2-core machine.
func javaArgs(heap string, jar string, args ...string) []string {
	base := []string{"-Xmx" + heap, "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
		"-Xshare:auto", "-jar", jar}
	return append(base, args...)
}

// agentPodName is the stand-in of the agent DaemonSet's pod on node.
func agentPodName(node string) string { return "tandem-node-topology-agent-" + node }

// startAgent runs the real agent for one fake node, reading the node's topology from a fixture. It
// authenticates as the DaemonSet's pod would, with a token bound to a pod on its node (the own-node
// ValidatingAdmissionPolicy refuses any other token of the agent's ServiceAccount).
func (k *cluster) startAgent(node string, f fixture) error {
	return k.startAgentOn(node, "--hwloc-xml", k.env.Testdata(filepath.Join("topologies", f.file)))
}

// startAgentOn is startAgent with the agent's discovery flags given (a VM's --nccl-topo and
// --sysfs-root).
func (k *cluster) startAgentOn(node string, discovery ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod, err := k.c.StandInPod(ctx, "tandem-system", agentPodName(node), "tandem-node-topology-agent", node)
	if err != nil {
		return err
	}
	kc, err := k.c.PodBoundKubeconfig(ctx, k.env, pod)
	if err != nil {
		return err
	}
	jar := k.env.Jar("node-topology-agent")
	port := harness.FreePort()
	args := append([]string{"run", "--node-name", node}, discovery...)
	args = append(args, "--kubeconfig", kc, "--port", fmt.Sprint(port))
	argv := append([]string{k.env.Java}, javaArgs("48m", jar, args...)...)
	p, err := harness.Start(k.env.Logs(), "agent-"+node, []string{"KUBECONFIG=" + kc, "NODE_NAME=" + node}, argv...)
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.agents[node] = p
	k.mu.Unlock()
	return nil
}

// startExtenders starts replicas of the real extender jar with the Deployment's arguments and
// environment, as its ServiceAccount, behind the Service stand-in.
func (k *cluster) startExtenders(ctx context.Context, names ...string) error {
	if k.service == nil {
		s, err := harness.NewService()
		if err != nil {
			return err
		}
		k.service = s
	}
	for _, name := range names {
		if err := k.startExtender(name); err != nil {
			return err
		}
	}
	return k.waitServiceReady(ctx)
}

func (k *cluster) startExtender(name string) error {
	jar := k.env.Jar("scheduler-extender")
	k.mu.Lock()
	port, ok := k.extPorts[name]
	if !ok {
		port = harness.FreePort()
		k.extPorts[name] = port
		k.inspPorts[name] = harness.FreePort()
	}
	inspection := k.inspPorts[name]
	k.mu.Unlock()
	args, err := workloadArgs(k.installed, "Deployment", "tandem-scheduler-extender")
	if err != nil {
		return err
	}
	// The Deployment's arguments with the ports moved to loopback (pods have their own network).
	var kept []string
	for _, a := range args {
		if !strings.HasPrefix(a, "--port") && !strings.HasPrefix(a, "--inspection-port") && !strings.HasPrefix(a, "--host") {
			kept = append(kept, k.paths.Rewrite(a))
		}
	}
	kept = append(kept, fmt.Sprintf("--port=%d", port), fmt.Sprintf("--inspection-port=%d", inspection), "--host=127.0.0.1")
	argv := append([]string{k.env.Java}, javaArgs("256m", jar, kept...)...)
	p, err := harness.Start(k.env.Logs(), name, []string{
		"KUBECONFIG=" + k.extKC, "POD_NAME=" + name, "POD_NAMESPACE=tandem-system",
	}, argv...)
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.extenders[name] = p
	var backends []harness.Backend
	for n, pr := range k.extPorts {
		if q := k.extenders[n]; q != nil && q.Running() {
			backends = append(backends, harness.Backend{
				Name:     n,
				Addr:     fmt.Sprintf("127.0.0.1:%d", pr),
				ReadyURL: fmt.Sprintf("http://127.0.0.1:%d/readyz", k.inspPorts[n]),
			})
		}
	}
	k.mu.Unlock()
	k.service.SetBackends(backends...)
	return nil
}

// waitServiceReady waits until one extender replica is ready (informers synced, leader).
func (k *cluster) waitServiceReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	for {
		if k.service.Ready() != "" {
			return nil
		}
		k.mu.Lock()
		alive := 0
		for _, p := range k.extenders {
			if p.Running() {
				alive++
			}
		}
		k.mu.Unlock()
		if alive == 0 {
			return fmt.Errorf("every extender replica exited; see logs/extender-*.log")
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no extender replica became ready (GET /readyz) within 90 s; see logs/extender-*.log")
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// startScheduler runs kube-scheduler with the shipped configuration, its URL pointed at the Service.
func (k *cluster) startScheduler(ctx context.Context) error {
	docs := k.installed
	sc, err := harness.FindSchedulerConfig(docs)
	if err != nil {
		return err
	}
	k.schedName = sc.SchedulerName()
	kc, err := k.c.ServiceAccountKubeconfig(ctx, k.env, "tandem-system", schedulerServiceAccount(docs))
	if err != nil {
		return err
	}
	cfg, err := sc.WriteForLoopback(k.env.Dir, k.service.Addr, kc, k.paths)
	if err != nil {
		return err
	}
	p, err := harness.Start(k.env.Logs(), "kube-scheduler", nil,
		filepath.Join(k.env.Bin, "kube-scheduler"), "--config", cfg, "--secure-port", fmt.Sprint(harness.FreePort()),
		"--bind-address", "127.0.0.1", "--v", "2")
	if err != nil {
		return err
	}
	k.scheduler = p
	return waitHTTP(ctx, "kube-scheduler", p, "", 0)
}

// schedulerServiceAccount is the ServiceAccount the shipped second-scheduler runs as.
func schedulerServiceAccount(docs []harness.Doc) string {
	for _, d := range docs {
		if d.Kind == "ServiceAccount" && (strings.Contains(d.File, "second-scheduler") || d.Name == "tandem-scheduler") {
			return d.Name
		}
	}
	return "tandem-scheduler"
}

// waitHTTP waits for url to answer 200 (or, with an empty url, 3 s of the process staying up).
func waitHTTP(ctx context.Context, what string, p *harness.Proc, url string, _ int) error {
	deadline := time.Now().Add(60 * time.Second)
	if url == "" {
		deadline = time.Now().Add(3 * time.Second)
	}
	for time.Now().Before(deadline) {
		if !p.Running() {
			return fmt.Errorf("%s exited during start-up; see %s", what, p.Log)
		}
		if url != "" {
			if resp, err := http.Get(url); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	if url == "" {
		return nil
	}
	return fmt.Errorf("%s not ready at %s within 60 s; see %s", what, url, p.Log)
}

// workloadArgs reads the first container's args of a Deployment or Job of what was installed
// (manifests/ or the chart's release).
func workloadArgs(docs []harness.Doc, kind, name string) ([]string, error) {
	c, err := harness.WorkloadContainer(docs, kind, name)
	if err != nil {
		return nil, err
	}
	return c.Args, nil
}

// certificates makes the verbs' certificates as the installation does: with kustomize, the
// certificate Job's own command (the extender jar's `certificates`, the Job's args) runs here as
// the Job's ServiceAccount, so its Role is exercised too; the chart renders its Secrets itself.
// Then the Secrets the extender and the second scheduler mount are copied to local directories, as
// the kubelet's Secret volumes would show them.
func (k *cluster) certificates(ctx context.Context) error {
	if args, err := workloadArgs(k.installed, "Job", "tandem-certificates"); err == nil {
		kc, err := k.c.ServiceAccountKubeconfig(ctx, k.env, "tandem-system", "tandem-certificates")
		if err != nil {
			return err
		}
		argv := append([]string{k.env.Java}, javaArgs("128m", k.env.Jar("scheduler-extender"), args...)...)
		p, err := harness.Start(k.env.Logs(), "certificates-job", []string{"KUBECONFIG=" + kc}, argv...)
		if err != nil {
			return err
		}
		select {
		case <-p.Exited():
		case <-ctx.Done():
			p.Kill()
			return fmt.Errorf("the certificate Job's command did not finish; see %s", p.Log)
		}
		if code := p.ExitCode(); code != 0 {
			return fmt.Errorf("the certificate Job's command exited %d; see %s", code, p.Log)
		}
	}
	k.paths = harness.PathMap{}
	for _, name := range []string{"tandem-scheduler-extender", "tandem-scheduler"} {
		mounts, err := harness.SecretMounts(k.installed, name)
		if err != nil {
			continue // no second scheduler in this wiring
		}
		for mount, secret := range mounts {
			local, err := k.c.WriteSecret(ctx, filepath.Join(k.env.Dir, "secrets"), "tandem-system", secret)
			if err != nil {
				return err
			}
			k.paths[mount] = local
		}
	}
	return nil
}
