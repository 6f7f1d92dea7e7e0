// Command throughput measures how many pods per second the real kube-scheduler binds, alone and with
// Tandem's extender wired as manifests/ wires it, on fake nodes (Node objects with GPU and HCA capacity
// and the NodeTopology of a real machine; no kubelets: pods are bound, never run).
//
// Run it with benchmarks/run-scheduling-throughput, which builds the jars and starts etcd and
// kube-apiserver through e2e/control-plane. Runs, at each cluster size:
//
//	a  kube-scheduler alone (the shipped configuration without its extenders entry), the device pods
//	b  kube-scheduler with the extender, the same device pods
//	c  as b, with pods that request neither resource mixed in (not sent to the extender)
//	f  kube-scheduler with a floor extender wired like Tandem's that decides nothing (floor.go): the
//	   extender protocol's own cost, the most any extender could reach
//	dra-root  kube-scheduler alone, each device pod's GPUs and HCAs in a ResourceClaim of its own with
//	   the one constraint upstream DRA drivers recommend (matchAttribute resource.kubernetes.io/pcieRoot),
//	   from the ResourceSlices Tandem's DRA driver publishes in joint mode for each node (dra.go)
//	dra-gen  as dra-root, with the claims Tandem's generator writes for each shape and policy
//	   (`tandem claim`)
//	dra-ext  kube-scheduler alone, the device pods asking nvidia.com/gpu and rdma/hca as extended
//	   resources that Tandem's DeviceClasses serve through DRA (KEP-5004, extended.go): the claim is
//	   kube-scheduler's own, without constraints
//	s  the replica that takes over (issue #30): the extender started again as a standby beside a Lease
//	   another identity holds, synced, rehearsed (-rehearsal-cycles), then the Lease released; its
//	   first -standby-pods device pods, in runs of -pods, each measured (standby.go)
//	s0 as s without the rehearsal (--standby-rehearsal-cycles=0), idling as long as the last s at the
//	   size took
//	b-base  as b with the extender of another checkout (-baseline, on -baseline-java; issue #30: the
//	   Java 17 tree beside this one): its jar, its Deployment's arguments and JAVA_TOOL_OPTIONS
//	   (builds.go). Only one extender runs at a time: moving between b and b-base stops one and
//	   starts the other on the same ports, and each start gets its own -warmup-pods.
//	b-noaot  as b with this tree's extender started without its AOT cache (builds.go): what the cache
//	   does to warm throughput, beside b in one run
//
// The Deployment's -XX:AOTCache names a path in the image; when a cache of that name lies beside the
// extender jar (AOT=1 in the script), the extender is started with it, and -require-aot fails when
// it is missing or the JVM refuses it.
//
// Issue #34 calls the last two (c) and (d); here c is taken, so they are named.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"tandem.dev/e2e/internal/harness"
)

type options struct {
	sizes        []int
	pods         int
	draPods      int
	cpuPods      int
	runs         []string
	heap         string
	qps, burst   int
	seed         int64
	timeout      time.Duration
	extenderArgs []string
	extenderJVM  string
	profileDir   string
	profileSecs  int
	report       string
	direct       bool
	plain        bool
	warmup       int
	// runs s and s0
	standbyPods     int
	rehearsalCycles int
	// run b-base
	baseline, baselineJava string
	requireAOT             bool
}

// transport says how kube-scheduler reaches the extender's verbs in runs b and c.
func (o *options) transport() string {
	switch {
	case !o.plain:
		return "mutual TLS as shipped, direct (no timing proxy: no \"seen\" figures)"
	case o.direct:
		return "plain HTTP (--insecure-verbs), direct"
	default:
		return "plain HTTP (--insecure-verbs) through the timing proxy"
	}
}

func parseOptions() (*options, error) {
	o := &options{}
	sizes := flag.String("nodes", "1000,5000", "cluster sizes, comma-separated; nodes are added between sizes")
	flag.IntVar(&o.pods, "pods", 400, "pods requesting GPUs and HCAs per run (1+1, 2+2, 4+4 in a 5:3:2 mix; 4+4 with NUMA alignment)")
	flag.IntVar(&o.cpuPods, "cpu-pods", 400, "pods requesting neither resource, added in run c")
	flag.IntVar(&o.draPods, "dra-pods", 0, "device pods per DRA run (dra-root, dra-gen, dra-ext); 0: as -pods")
	runs := flag.String("runs", "a,b,c", "runs at each size: a (kube-scheduler alone), b (with Tandem), c (b plus CPU-only pods), f (with a floor extender that decides nothing), dra-root (DRA, one pcieRoot constraint), dra-gen (DRA, Tandem's generated claims), dra-ext (DRA, the extended resources through DeviceClasses' extendedResourceName), s (the standby that rehearsed takes the Lease), s0 (the standby that did not), b-base (b with the -baseline checkout's extender), b-noaot (b with this tree's extender without its AOT cache)")
	flag.StringVar(&o.heap, "extender-heap", "358m", "extender -Xmx (the Deployment's 512Mi limit x MaxRAMPercentage 70)")
	flag.IntVar(&o.qps, "qps", 0, "kube-scheduler clientConnection.qps (0: as shipped)")
	flag.IntVar(&o.burst, "burst", 0, "kube-scheduler clientConnection.burst (0: as shipped)")
	flag.Int64Var(&o.seed, "seed", 1, "seed of the pod mix")
	flag.DurationVar(&o.timeout, "run-timeout", 10*time.Minute, "give up on a run after this long")
	extra := flag.String("extender-args", "", "extra extender flags, space-separated (e.g. the TLS flags of the listener)")
	flag.StringVar(&o.profileDir, "profile", "", "write kube-scheduler's CPU profile of each run to this directory (<run>-<nodes>.pprof)")
	flag.IntVar(&o.profileSecs, "profile-seconds", 5, "length of each kube-scheduler CPU profile, from the run's first pod")
	flag.StringVar(&o.extenderJVM, "extender-jvm", "", "extra extender JVM options, appended to JAVA_TOOL_OPTIONS (e.g. -XX:StartFlightRecording=...)")
	flag.StringVar(&o.report, "report", "", "also write the result table to this file")
	flag.IntVar(&o.warmup, "warmup-pods", 2000, "device pods scheduled through the extender, unmeasured, before the first run with it (its JIT compiles during the first thousands of pods); 0 for none")
	flag.IntVar(&o.standbyPods, "standby-pods", 2000, "runs s and s0: device pods measured after the standby takes over, in runs of -pods")
	flag.IntVar(&o.rehearsalCycles, "rehearsal-cycles", 2000, "run s: the standby's --standby-rehearsal-cycles, awaited before the Lease is released")
	flag.StringVar(&o.baseline, "baseline", "", "run b-base: another checkout, built (its scheduler-extender/target/scheduler-extender.jar and its manifests/ are used; e.g. the Java 17 tree)")
	flag.StringVar(&o.baselineJava, "baseline-java", "", "run b-base: the java executable, or JDK home, that runs the baseline's extender (default: the one that runs this tree's)")
	flag.BoolVar(&o.requireAOT, "require-aot", false, "fail unless this tree's extender starts with its AOT cache: the Deployment's -XX:AOTCache file name beside the extender jar (AOT=1 in the script sets it)")
	flag.BoolVar(&o.direct, "direct", false, "with -plain-http: kube-scheduler calls the extender directly, without the timing proxy (no \"seen\" figures)")
	flag.BoolVar(&o.plain, "plain-http", false, "kube-scheduler talks plain HTTP to the extender (--insecure-verbs), through a proxy that times each verb as kube-scheduler sees it; by default it uses the shipped mutual TLS, directly")
	flag.Parse()
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 4 {
			return nil, fmt.Errorf("-nodes: %q is not a node count of at least 4 (one node per fixture)", s)
		}
		if len(o.sizes) > 0 && n < o.sizes[len(o.sizes)-1] {
			return nil, fmt.Errorf("-nodes: sizes must grow (%d after %d): nodes are only added", n, o.sizes[len(o.sizes)-1])
		}
		o.sizes = append(o.sizes, n)
	}
	for _, r := range strings.Split(*runs, ",") {
		r = strings.TrimSpace(r)
		if r != "a" && r != "f" && !tandemRun(r) && !isDRA(r) {
			return nil, fmt.Errorf("-runs: %q is none of a, b, c, f, %s, %s, %s, %s, %s, %s, %s", r, runDRARoot, runDRAGen, runDRAExt, runStandby, runStandbyIdle, runBaseline, runWithoutCache)
		}
		if r == runBaseline && o.baseline == "" {
			return nil, fmt.Errorf("-runs: %s needs -baseline, the checkout whose extender it runs", runBaseline)
		}
		o.runs = append(o.runs, r)
	}
	if o.baseline != "" && o.baselineJava == "" {
		o.baselineJava = os.Getenv("JAVA")
		if o.baselineJava == "" {
			o.baselineJava = "java"
		}
	}
	if o.warmup < 0 {
		return nil, fmt.Errorf("-warmup-pods must not be negative, got %d", o.warmup)
	}
	if o.standbyPods < 1 || o.rehearsalCycles < 1 {
		return nil, fmt.Errorf("-standby-pods and -rehearsal-cycles must be at least 1, got %d and %d", o.standbyPods, o.rehearsalCycles)
	}
	if o.pods < 1 {
		return nil, fmt.Errorf("-pods must be at least 1, got %d", o.pods)
	}
	if o.draPods < 0 {
		return nil, fmt.Errorf("-dra-pods must not be negative, got %d", o.draPods)
	}
	if o.draPods == 0 {
		o.draPods = o.pods
	}
	o.extenderArgs = strings.Fields(*extra)
	return o, nil
}

// dra says whether a DRA run is asked: the cluster then gets DeviceClasses and ResourceSlices.
func (o *options) dra() bool {
	for _, r := range o.runs {
		if isDRA(r) {
			return true
		}
	}
	return false
}

func main() {
	o, err := parseOptions()
	if err != nil {
		fmt.Fprintln(os.Stderr, "throughput:", err)
		os.Exit(2)
	}
	if err := measure(o); err != nil {
		fmt.Fprintln(os.Stderr, "throughput:", err)
		os.Exit(1)
	}
}

func measure(o *options) error {
	env, err := harness.LoadEnv()
	if err != nil {
		return err
	}
	ctx := context.Background()
	b, err := newBench(ctx, env, o)
	if err != nil {
		return err
	}
	defer b.close()
	var results []result
	for _, n := range o.sizes {
		if err := b.grow(ctx, n); err != nil {
			return err
		}
		for _, r := range o.runs {
			if isStandby(r) {
				rs, err := b.standbyRuns(ctx, r, n)
				if err != nil {
					return fmt.Errorf("run %s at %d nodes: %w", r, n, err)
				}
				results = append(results, rs...)
				continue // a fresh extender leads now: the next b warms it up
			}
			if tandemRun(r) {
				if err := b.useExtender(ctx, b.buildOf(r), r, n); err != nil {
					return fmt.Errorf("run %s at %d nodes: %w", r, n, err)
				}
				if !b.warm && o.warmup > 0 {
					if err := warmUp(ctx, b, r, n); err != nil {
						return err
					}
				}
				b.warm = true
			}
			count := o.pods
			if isDRA(r) {
				count = o.draPods
			}
			run := b.run
			if r == runDRAExt {
				run = b.runExt
			}
			res, err := run(ctx, r, r, n, count)
			if err != nil {
				return fmt.Errorf("run %s at %d nodes: %w", r, n, err)
			}
			results = append(results, res)
			logf("run %s at %d nodes: %.1f pods/s", r, n, res.podsPerSecond())
		}
	}
	table := render(results, o.transport()+b.extenders())
	if b.claims != nil {
		table += fmt.Sprintf("\nDRA claims: %s: %s; %s: %s; %s: kube-scheduler's, one exactly request per name, no constraints\n",
			runDRARoot, b.claims.describe(runDRARoot), runDRAGen, b.claims.describe(runDRAGen), runDRAExt)
	}
	fmt.Print(table)
	if o.report != "" {
		return os.WriteFile(o.report, []byte(table), 0o644)
	}
	return nil
}

// warmUp schedules -warmup-pods device pods through the extender, unmeasured, in rounds of at most
// -pods (each round's pods are deleted before the next, so any cluster that holds one run holds the
// warm-up): a fresh JVM runs the verbs interpreted and compiles them over the first thousands of
// pods, which a short run would measure instead of the extender as it runs for days (-warmup-pods 0
// measures a fresh one).
func warmUp(ctx context.Context, b *bench, run string, nodes int) error {
	t0 := time.Now()
	for done, round := 0, 1; done < b.o.warmup; round++ {
		n := min(b.o.pods, b.o.warmup-done)
		if _, err := b.run(ctx, run, fmt.Sprintf("warmup-%s-%d", run, round), nodes, n); err != nil {
			return fmt.Errorf("warm-up of %s at %d nodes, round %d: %w", run, nodes, round, err)
		}
		done += n
	}
	logf("warm-up: %d device pods through %s extender at %d nodes (%.0f s), not measured",
		b.o.warmup, b.running.label, nodes, time.Since(t0).Seconds())
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "throughput: "+format+"\n", args...)
}
