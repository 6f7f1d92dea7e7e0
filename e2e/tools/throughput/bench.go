package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"tandem.dev/e2e/internal/harness"
)

// bench is the cluster every run shares: Tandem installed from manifests/, the extender running
// behind a timing proxy, and the fake nodes added so far.
type bench struct {
	o         *options
	env       *harness.Env
	c         *harness.Clients
	docs      []harness.Doc
	templates []*template
	// the nodes the agents published on, by name
	templateNodes map[string]*template
	nodes         int
	extender      *harness.Proc
	extPort       int // the verbs' and inspection ports, kept when the extender is started again
	inspPort      int
	extURL        string
	inspectionURL string
	gcLog         string
	proxy         *timingProxy
	floor         *floorExtender        // run f's extender, started at its first run
	floorProxy    *timingProxy          // before it, when Tandem's verbs have a timing proxy too
	rehearsed     map[int]time.Duration // run s: synced → rehearsal done, by cluster size (run s0 idles as long)
	schedKC       string
	schedName     string    // the shipped configuration's schedulerName, which the pods name
	claims        draClaims // each DRA run's claim per shape; nil without DRA runs
	// where the Secrets of the extender's and the scheduler's Deployments are found locally (TLS)
	paths harness.PathMap

	// the extender builds: this tree's, the -baseline checkout's (nil without it), this tree's
	// without its AOT cache (run b-noaot), the one running
	own, baseline, ownCold, running *extenderBuild
	warm                            bool   // the running extender has had its warm-up
	aotCache                        string // the AOT cache the running extender was given, "" for none
	logStart                        int64  // its log's size when it started (checkAOTCache reads from there)
}

func newBench(ctx context.Context, env *harness.Env, o *options) (*bench, error) {
	c, err := env.Connect()
	if err != nil {
		return nil, err
	}
	// Creating thousands of nodes is the set-up, not the measurement: let the client go fast.
	c.Config.QPS, c.Config.Burst = 2000, 4000
	if c, err = reconnect(c); err != nil {
		return nil, err
	}
	b := &bench{o: o, env: env, c: c, templateNodes: map[string]*template{}, rehearsed: map[int]time.Duration{}}
	steps := []struct {
		name string
		f    func(context.Context) error
	}{
		{"manifests/ and manifests/scheduler/second-scheduler applied", b.install},
		{"NodeTopology of each machine published by the real agent", b.publishTemplates},
		{"extender started with the Deployment's arguments and JVM flags", func(ctx context.Context) error {
			return b.startExtender(ctx, extenderStart{name: "extender", build: b.own})
		}},
	}
	if o.dra() {
		steps = append(steps, struct {
			name string
			f    func(context.Context) error
		}{"DeviceClasses of manifests/overlays/dra and dra-joint applied, each machine's ResourceSlices from dra-driver.jar slices", b.installDRA})
	}
	for _, s := range steps {
		t0 := time.Now()
		if err := s.f(ctx); err != nil {
			b.close()
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		logf("%s (%.1f s)", s.name, time.Since(t0).Seconds())
	}
	return b, nil
}

func (b *bench) close() {
	if b.proxy != nil {
		b.proxy.close()
	}
	if b.floor != nil {
		b.floor.close()
	}
	if b.floorProxy != nil {
		b.floorProxy.close()
	}
	b.extender.Stop(5 * time.Second)
}

func (b *bench) install(ctx context.Context) error {
	dir := b.env.Path("manifests")
	for _, k := range []string{"", "scheduler/second-scheduler"} {
		if _, err := b.env.Kubectl(nil, "apply", "--server-side", "--field-manager=tandem-throughput", "-k", filepath.Join(dir, k)); err != nil {
			return err
		}
	}
	if _, err := b.env.Kubectl(nil, "wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"); err != nil {
		return err
	}
	docs, err := harness.ReadManifests(dir)
	if err != nil {
		return err
	}
	b.docs = docs
	b.own = ownBuild(b.env, docs)
	b.ownCold = withoutCache(b.own)
	if b.o.baseline != "" {
		if b.baseline, err = baselineBuild(b.o.baseline, b.o.baselineJava); err != nil {
			return err
		}
	}
	sc, err := harness.FindSchedulerConfig(docs)
	if err != nil {
		return err
	}
	b.schedName = sc.SchedulerName()
	if err := b.c.EnsureNamespace(ctx, namespace); err != nil {
		return err
	}
	if b.schedKC, err = b.c.ServiceAccountKubeconfig(ctx, b.env, "tandem-system", "tandem-scheduler"); err != nil {
		return err
	}
	if b.o.plain {
		return nil
	}
	b.paths, err = b.c.IssueCertificates(ctx, b.env, docs, []string{b.env.Java, "-Xmx128m", "-jar", b.env.Jar("scheduler-extender")})
	return err
}

// extenderStart says how startExtender starts the extender: the log's name (also its POD_NAME, the
// identity in the Lease), which build, flags added after the Deployment's, and whether it starts as
// a standby (another replica holds the Lease: it never becomes Ready by itself, so /readyz is not
// awaited).
type extenderStart struct {
	name    string
	build   *extenderBuild
	extra   []string
	standby bool
}

// startExtender runs the build's extender jar on its java with its Deployment's arguments (its port
// moved to loopback) and JAVA_TOOL_OPTIONS (jvmOptions: the AOT cache), plus the heap of
// -extender-heap and a GC log, as its ServiceAccount. A second start takes the ports of the first
// (the one before it must have stopped), so the URLs and the timing proxy stay.
func (b *bench) startExtender(ctx context.Context, s extenderStart) error {
	c, err := harness.DeploymentContainer(s.build.docs, "tandem-scheduler-extender")
	if err != nil {
		return err
	}
	kc, err := b.c.ServiceAccountKubeconfig(ctx, b.env, "tandem-system", "tandem-scheduler-extender")
	if err != nil {
		return err
	}
	if b.extPort == 0 {
		b.extPort, b.inspPort = harness.FreePort(), harness.FreePort()
	}
	args := []string{}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--port") || strings.HasPrefix(a, "--host") || strings.HasPrefix(a, "--inspection-port") {
			continue
		}
		if tlsArg(a) {
			if b.o.plain {
				continue
			}
			if a = b.paths.Rewrite(a); tlsArg(a) && strings.Contains(a, "=/etc/") {
				return fmt.Errorf("extender flag %s names a file in no Secret the Deployment mounts", a)
			}
		}
		args = append(args, a)
	}
	args = append(args, fmt.Sprintf("--port=%d", b.extPort), fmt.Sprintf("--inspection-port=%d", b.inspPort), "--host=127.0.0.1")
	if b.o.plain {
		// plain HTTP between the timing proxy and the extender (the proxy cannot read TLS)
		args = append(args, "--insecure-verbs")
	}
	args = append(args, b.o.extenderArgs...)
	args = append(args, s.extra...)
	shipped, cache, err := b.jvmOptions(s.build, c.Env["JAVA_TOOL_OPTIONS"])
	if err != nil {
		return err
	}
	b.gcLog = filepath.Join(b.env.Logs(), s.name+"-gc.log")
	jvm := shipped + " -Xmx" + b.o.heap + " -Xlog:gc:file=" + b.gcLog + " " + b.o.extenderJVM
	argv := append([]string{s.build.java, "-jar", s.build.jar}, args...)
	b.logStart = 0
	if st, err := os.Stat(filepath.Join(b.env.Logs(), s.name+".log")); err == nil {
		b.logStart = st.Size()
	}
	b.running, b.warm, b.aotCache = s.build, false, cache
	b.extender, err = harness.Start(b.env.Logs(), s.name, []string{
		"KUBECONFIG=" + kc, "POD_NAME=" + s.name, "POD_NAMESPACE=tandem-system", "JAVA_TOOL_OPTIONS=" + jvm,
	}, argv...)
	if err != nil {
		return err
	}
	b.extURL = fmt.Sprintf("http://127.0.0.1:%d", b.extPort)
	b.inspectionURL = fmt.Sprintf("http://127.0.0.1:%d", b.inspPort)
	if b.o.plain && !b.o.direct && b.proxy == nil {
		if b.proxy, err = newTimingProxy(b.extURL); err != nil {
			return err
		}
	}
	if s.standby {
		return nil
	}
	if err := harness.WaitOK(ctx, b.extender, insecure, b.inspectionURL+"/readyz", 2*time.Minute); err != nil {
		return err
	}
	return b.checkAOTCache()
}

// startScheduler runs kube-scheduler with the shipped second-scheduler configuration, its extender
// URL at target (the extender, the timing proxy or the floor extender; "" drops the extenders
// entry: run a). Leader election is off: each run starts a fresh scheduler and must not wait for
// the previous one's lease.
func (b *bench) startScheduler(ctx context.Context, run, target string) (*harness.Proc, string, error) {
	sc, err := harness.FindSchedulerConfig(b.docs)
	if err != nil {
		return nil, "", err
	}
	dir := filepath.Join(b.env.Dir, "run-"+run)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	if b.o.plain {
		plainHTTP(sc)
	}
	addr := "127.0.0.1:1" // run a: the extenders entry is dropped below
	if _, hostPort, ok := strings.Cut(target, "://"); ok {
		addr = hostPort
	}
	path, err := sc.WriteForLoopback(dir, addr, b.schedKC, b.paths)
	if err != nil {
		return nil, "", err
	}
	if err := b.adjust(path, target != ""); err != nil {
		return nil, "", err
	}
	port := harness.FreePort()
	p, err := harness.Start(b.env.Logs(), "kube-scheduler-"+run, nil,
		filepath.Join(b.env.Bin, "kube-scheduler"), "--config", path, "--secure-port", fmt.Sprint(port),
		"--bind-address", "127.0.0.1", "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics,/debug/pprof/*",
		// as e2e/control-plane's API server keeps the driver's taints (GA from 1.37, off before 1.36)
		"--feature-gates", "DRADeviceTaints=true", "--v", "1")
	if err != nil {
		return nil, "", err
	}
	url := fmt.Sprintf("https://127.0.0.1:%d", port)
	if err := harness.WaitOK(ctx, p, insecure, url+"/readyz", 2*time.Minute); err != nil {
		p.Stop(5 * time.Second)
		return nil, "", err
	}
	return p, url, nil
}

// adjust rewrites the written configuration for a run: leader election off, the extenders entry
// dropped for run a, clientConnection.qps/burst overridden when asked.
func (b *bench) adjust(path string, withExtender bool) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return err
	}
	cfg["leaderElection"] = map[string]any{"leaderElect": false}
	if !withExtender {
		delete(cfg, "extenders")
	}
	cc, _ := cfg["clientConnection"].(map[string]any)
	if b.o.qps > 0 {
		cc["qps"] = b.o.qps
	}
	if b.o.burst > 0 {
		cc["burst"] = b.o.burst
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

// schedulerQPS is the clientConnection the runs use (as shipped unless overridden).
func (b *bench) schedulerQPS() string {
	sc, err := harness.FindSchedulerConfig(b.docs)
	if err != nil {
		return "?"
	}
	cc, _ := sc.Obj["clientConnection"].(map[string]any)
	qps, burst := fmt.Sprint(cc["qps"]), fmt.Sprint(cc["burst"])
	if b.o.qps > 0 {
		qps = fmt.Sprint(b.o.qps)
	}
	if b.o.burst > 0 {
		burst = fmt.Sprint(b.o.burst)
	}
	return "qps " + qps + ", burst " + burst
}

// extenderTarget is where kube-scheduler reaches the extender of a run: Tandem's (through the timing
// proxy when there is one), the floor extender for run f, none for run a.
func (b *bench) extenderTarget(run string) (string, error) {
	switch {
	case run == "a" || isDRA(run):
		return "", nil
	case run == "f":
		if b.floor == nil {
			files, err := b.floorTLSFiles()
			if err != nil {
				return "", err
			}
			sc, err := harness.FindSchedulerConfig(b.docs)
			if err != nil {
				return "", err
			}
			if b.floor, err = newFloorExtender(b.c.Kube, files, sc.ExtenderPath()); err != nil {
				return "", err
			}
			if b.proxy != nil {
				if b.floorProxy, err = newTimingProxy(b.floor.url); err != nil {
					return "", err
				}
			}
		}
		if b.floorProxy != nil {
			return b.floorProxy.url, nil
		}
		return b.floor.url, nil
	case b.proxy != nil:
		return b.proxy.url, nil
	default:
		return b.extURL, nil
	}
}

// proxyOf is the timing proxy in front of a run's extender; nil for none (take then reports nothing).
func (b *bench) proxyOf(run string) *timingProxy {
	switch {
	case run == "a" || isDRA(run):
		return nil
	case run == "f":
		return b.floorProxy
	default:
		return b.proxy
	}
}

var insecure = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}

// tlsArg is an extender flag of the verbs' TLS (left out with -plain-http).
func tlsArg(a string) bool {
	for _, f := range []string{"--tls-cert", "--tls-key", "--client-ca"} {
		if strings.HasPrefix(a, f) {
			return true
		}
	}
	return false
}

// plainHTTP points the shipped extender entries at http, without tlsConfig.
func plainHTTP(sc *harness.SchedulerConfig) {
	exts, _ := sc.Obj["extenders"].([]any)
	for _, e := range exts {
		m := e.(map[string]any)
		m["urlPrefix"] = strings.Replace(fmt.Sprint(m["urlPrefix"]), "https://", "http://", 1)
		m["enableHTTPS"] = false
		delete(m, "tlsConfig")
	}
}
