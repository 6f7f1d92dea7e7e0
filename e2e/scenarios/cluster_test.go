//go:build e2e

// Package scenarios runs Tandem's real jars against a real kube-apiserver and kube-scheduler.
// Run it with e2e/run, which builds the upstream binaries and starts the control plane.
package scenarios

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem.dev/e2e/internal/harness"
)

// fixture is a machine the agent reads (its hwloc export) and the device counts its fake node advertises.
type fixture = harness.Machine

var (
	xe8640 = harness.XE8640
	relion = harness.Relion
	lassen = harness.Lassen
	sl390s = harness.SL390s
)

// cluster is the one control plane every scenario of this binary runs on, with Tandem installed and
// its components around it. TestMain sets it up once (set-up takes a minute or more on the shared
// machine; a control plane per scenario would multiply that), so this is what a scenario may rely
// on, whatever ran before it (see use):
//   - Tandem installed (kustomize, or the chart with E2E_INSTALL=chart), its certificates issued;
//   - one extender replica or more behind the Service, one of them ready (the leader), and
//     kube-scheduler running with the shipped configuration.
//
// Everything else a scenario makes its own: its namespace, its nodes (a node-selector group, named
// after the scenario), its agents, kubelet device side and plugins. A scenario that stops a shared
// component (the extender, kube-scheduler, the API server) starts it again before it ends, and use
// restarts whatever is still missing. Uninstalling Tandem is the one thing no scenario here does: it
// runs in its own test binary (e2e/uninstall), after this one.
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

// use is the first call of a scenario that schedules: it checks what every scenario relies on (a
// ready extender replica behind the Service, kube-scheduler running), starts again what an earlier
// scenario left stopped, and creates the scenario's namespace ns (its nodes' group has the same name).
func (k *cluster) use(t *testing.T, ns string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if k.service.Ready() == "" && len(k.runningExtenders()) == 0 {
		t.Logf("no extender replica runs (an earlier scenario stopped them): starting extender-0")
		if err := k.startExtenders(ctx, "extender-0"); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.waitServiceReady(ctx); err != nil {
		t.Fatal(err)
	}
	if !k.scheduler.Running() {
		t.Logf("kube-scheduler is not running (it exited after an earlier scenario): starting it again")
		if err := k.startScheduler(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.c.EnsureNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
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
	}
}

func (k *cluster) credentials(ctx context.Context) error {
	var err error
	k.extKC, err = k.c.ServiceAccountKubeconfig(ctx, k.env, "tandem-system", "tandem-scheduler-extender")
	return err
}

// javaArgs keeps the JVMs small: many agents run at once on a 2-core machine.
func javaArgs(heap string, jar string, args ...string) []string {
	return javaArgsWith(heap, nil, jar, args...)
}

// javaArgsWith is javaArgs with more JVM options (system properties) before the jar.
func javaArgsWith(heap string, jvm []string, jar string, args ...string) []string {
	base := []string{"-Xmx" + heap, "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1",
		"-Xshare:auto"}
	base = append(append(base, jvm...), "-jar", jar)
	return append(base, args...)
}

// agentPodName is the stand-in of the agent DaemonSet's pod on node.
func agentPodName(node string) string { return "tandem-node-topology-agent-" + node }

// startAgent runs the real agent for one fake node, reading the node's topology from a fixture. It
// authenticates as the DaemonSet's pod would, with a token bound to a pod on its node (the own-node
// ValidatingAdmissionPolicy refuses any other token of the agent's ServiceAccount).
func (k *cluster) startAgent(node string, f fixture) error {
	return k.startAgentOn(node, "--hwloc-xml", k.env.Topology(f.File))
}

// startAgentOn is startAgent with the agent's discovery flags given (a VM's --nccl-topo and
// --sysfs-root).
func (k *cluster) startAgentOn(node string, discovery ...string) error {
	return k.startAgentJVM(node, nil, nil, discovery...)
}

// startAgentJVM is startAgentOn with more JVM options and environment (startAgentWith).
func (k *cluster) startAgentJVM(node string, jvm, env []string, discovery ...string) error {
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
	argv := append([]string{k.env.Java}, javaArgsWith("48m", jvm, jar, args...)...)
	p, err := harness.Start(k.env.Logs(), "agent-"+node, append([]string{"KUBECONFIG=" + kc, "NODE_NAME=" + node}, env...), argv...)
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

// standbyRehearsalCycles is how many filter and prioritize cycles an e2e standby rehearses.
const standbyRehearsalCycles = 300

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
	// A standby rehearses standbyRehearsalCycles cycles, not the shipped 2,000: the same path, sooner.
	p, err := harness.Start(k.env.Logs(), name, []string{
		"KUBECONFIG=" + k.extKC, "POD_NAME=" + name, "POD_NAMESPACE=tandem-system",
		fmt.Sprintf("TANDEM_EXTENDER_STANDBY_REHEARSAL_CYCLES=%d", standbyRehearsalCycles),
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
	err := harness.Eventually(ctx, 200*time.Millisecond, 90*time.Second, func(context.Context) error {
		if k.service.Ready() != "" {
			return nil
		}
		if len(k.runningExtenders()) == 0 {
			return harness.Permanent(fmt.Errorf("every extender replica exited"))
		}
		return fmt.Errorf("no replica answers GET /readyz with 200")
	})
	if err != nil {
		return fmt.Errorf("no extender replica became ready: %w; see logs/extender-*.log", err)
	}
	return nil
}

// runningExtenders names the extender replicas whose process runs, sorted.
func (k *cluster) runningExtenders() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var names []string
	for name, p := range k.extenders {
		if p.Running() {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
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
	port := harness.FreePort()
	p, err := harness.Start(k.env.Logs(), "kube-scheduler", nil,
		filepath.Join(k.env.Bin, "kube-scheduler"), "--config", cfg, "--secure-port", fmt.Sprint(port),
		"--bind-address", "127.0.0.1", "--v", "2",
		// the DRA allocator skips devices whose taints a claim does not tolerate only with the gate
		// (alpha and off in v1.35, on by default from v1.36), as the API server keeps them (control-plane)
		"--feature-gates", "DRADeviceTaints=true")
	if err != nil {
		return err
	}
	k.scheduler = p
	// /readyz (served to anyone: --authorization-always-allow-paths' default) says its informers
	// have synced; with leader election it schedules once it holds its Lease. Its serving
	// certificate is self-signed: not checked.
	insecure := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	return harness.WaitOK(ctx, p, insecure, fmt.Sprintf("https://127.0.0.1:%d/readyz", port), time.Minute)
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

// eventually fails t when check has not passed within timeout (polled every 250 ms); what says what
// was awaited.
func eventually(t *testing.T, timeout time.Duration, what string, check func(context.Context) error) {
	t.Helper()
	if err := harness.Eventually(context.Background(), 250*time.Millisecond, timeout, check); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
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

// certificates makes the verbs' certificates as the installation does (harness.IssueCertificates)
// and keeps where the extender's and the second scheduler's Secrets are found locally.
func (k *cluster) certificates(ctx context.Context) error {
	jvm := append([]string{k.env.Java}, javaArgs("128m", k.env.Jar("scheduler-extender"))...)
	paths, err := k.c.IssueCertificates(ctx, k.env, k.installed, jvm)
	k.paths = paths
	return err
}
