// Command soak churns pods through the real scheduler extender (a process running the shipped jar
// and JVM options) against the real kube-apiserver of the end-to-end harness: each pod is created,
// filtered, prioritized and bound through the extender's HTTP verbs as kube-scheduler calls them, its
// plan checked against the plans of every bound pod, and deleted a few waves later. Every
// --sample-every pods it runs a full GC in the extender and records the heap used, its threads and
// its open descriptors. Run it with benchmarks/run-soak (docs/performance.md, "Soak").
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"tandem.dev/e2e/internal/harness"
)

type options struct {
	pods, nodes, wave, keep, concurrency, sampleEvery int
	maxRAM, prefix, ca, cert, key                     string
	extenderArgs                                      multi
	timeout                                           time.Duration
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, " ") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var o options
	flag.IntVar(&o.pods, "pods", 10000, "pods to churn through filter, prioritize, bind and delete")
	flag.IntVar(&o.nodes, "nodes", 40, "fake nodes, cycling through the hwloc fixtures")
	flag.IntVar(&o.wave, "wave", 100, "pods placed per wave; after each wave the oldest bound pods are deleted")
	flag.IntVar(&o.keep, "keep", 20, "bound pods kept after each wave (the rest, oldest first, are deleted)")
	flag.IntVar(&o.concurrency, "concurrency", 4, "pods in flight at once")
	flag.IntVar(&o.sampleEvery, "sample-every", 1000, "pods between two samples of the extender's JVM")
	flag.StringVar(&o.maxRAM, "max-ram", "512m", "the extender container's memory limit (manifests/base), for -XX:MaxRAMPercentage")
	flag.StringVar(&o.prefix, "prefix", "/scheduler", "the extender's URL prefix")
	flag.StringVar(&o.ca, "extender-ca", "", "speak HTTPS to the extender, trusting this PEM CA (start it with --extender-arg=--tls-cert=… --extender-arg=--tls-key=…)")
	flag.StringVar(&o.cert, "client-cert", "", "with --extender-ca: present this client certificate (PEM)")
	flag.StringVar(&o.key, "client-key", "", "the key of --client-cert (PEM)")
	flag.Var(&o.extenderArgs, "extender-arg", "an extra argument for the extender (repeatable)")
	flag.DurationVar(&o.timeout, "timeout", 90*time.Minute, "give up after this long")
	flag.Parse()
	if o.pods < 1 || o.wave < 1 || o.sampleEvery < 1 || o.concurrency < 1 || o.keep < 0 || (o.cert == "") != (o.key == "") {
		fmt.Fprintln(os.Stderr, "soak: --pods, --wave, --sample-every and --concurrency must be at least 1, --keep at least 0, and --client-cert goes with --client-key")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "soak: %v\n", err)
		os.Exit(1)
	}
}

func run(o options) error {
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	env, err := harness.LoadEnv()
	if err != nil {
		return err
	}
	c, err := env.Connect()
	if err != nil {
		return err
	}
	if _, err := env.Kubectl(nil, "apply", "--server-side", "-k", env.Path("manifests")); err != nil {
		return err
	}
	if err := c.EnsureNamespace(ctx, namespace); err != nil {
		return err
	}
	tops, err := topologies(env)
	if err != nil {
		return err
	}
	nodes, err := createNodes(ctx, c, tops, o.nodes)
	if err != nil {
		return err
	}
	ext, port, inspection, err := extenderProcess(ctx, env, c, o.maxRAM, o.ca != "", o.extenderArgs)
	if err != nil {
		return err
	}
	defer ext.Stop(5 * time.Second)
	scheme := "http"
	if o.ca != "" {
		scheme = "https"
	}
	v, err := newVerbs(fmt.Sprintf("%s://127.0.0.1:%d%s", scheme, port, o.prefix), o.ca, o.cert, o.key)
	if err != nil {
		return err
	}
	if err := harness.WaitOK(ctx, ext, &http.Client{Timeout: 5 * time.Second}, fmt.Sprintf("http://127.0.0.1:%d/readyz", inspection), 2*time.Minute); err != nil {
		return err
	}
	jcmd, err := jcmdNextTo(env.Java)
	if err != nil {
		return err
	}
	ch := &churn{c: c, verbs: v, nodes: nodes, ledger: harness.NewLedger()}
	fmt.Printf("soak: %d pods, %d nodes, waves of %d keeping %d bound, %d in flight; extender pid %d (log %s)\n",
		o.pods, len(nodes), o.wave, o.keep, o.concurrency, ext.Pid(), ext.Log)
	rep := &report{}
	start := time.Now()
	for done := 0; done < o.pods || ch.waiting() > 0; {
		n := min(max(o.wave-ch.waiting(), 0), o.pods-done) // a wave is at most --wave pods, retries first
		ch.wave(ctx, done, n, o.concurrency)
		done += n
		ch.trim(ctx, o.keep)
		if err := ch.audit(ctx); err != nil {
			ch.fail(err)
		}
		if n > 0 && (done/o.sampleEvery > (done-n)/o.sampleEvery || done == o.pods) {
			s, err := sampleJVM(jcmd, ext.Pid())
			if err != nil {
				return err
			}
			rep.add(done, time.Since(start), s, ch)
		}
		if !ext.Running() {
			return fmt.Errorf("the extender exited during the soak; see %s", ext.Log)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("after %d pods: %w", done, err)
		}
	}
	return rep.verdict(ch, time.Since(start))
}

// wave retries the pods waiting for a node, then places pods from..from+n-1, with concurrency
// workers.
func (ch *churn) wave(ctx context.Context, from, n, concurrency int) {
	jobs := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				ch.attempt(ctx, j)
			}
		}()
	}
	for _, j := range ch.takePending() {
		jobs <- j
	}
	for i := from; i < from+n; i++ {
		jobs <- job{i: i}
	}
	close(jobs)
	wg.Wait()
}
