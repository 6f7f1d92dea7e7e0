package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"tandem.dev/e2e/internal/harness"
)

const namespace = "throughput"

// shape is what a pod asks for, and its tandem.dev/alignment ("" = the default, switch).
type shape struct {
	gpus, hcas int
	alignment  string
}

// The realistic mix: mostly small jobs, some half- and whole-node ones (5:3:2). A whole 4-GPU node
// of these machines spans PCIe switches (the XE8640 and AC922 put each GPU and HCA pair on its own
// root complex), so 4+4 pods ask for NUMA-node alignment, as such a job would.
var mix = []shape{{1, 1, ""}, {1, 1, ""}, {1, 1, ""}, {1, 1, ""}, {1, 1, ""}, {2, 2, ""}, {2, 2, ""}, {2, 2, ""},
	{4, 4, "numa"}, {4, 4, "numa"}}

// toolProcess is this tool: it creates the pods and watches them bound, and in run f serves the floor extender.
const toolProcess = "this tool (f: + floor extender)"

// processes whose CPU time a run reports.
var processes = []string{"kube-scheduler", "extender", "kube-apiserver", "etcd", toolProcess}

// result is one run's figures.
type result struct {
	run           string
	nodes         int
	qps           string
	device, cpu   span
	algorithmMs   float64            // kube-scheduler's scheduling_algorithm_duration_seconds, mean
	frameworkMs   float64            // its own filter and score plugins in that, mean per pod
	schedBindMs   float64            // its Bind extension point (run a: the default binder), mean
	seen, own     map[string]latency // per verb: at the proxy (as kube-scheduler sees it), the extender's metrics
	cpuPerPod     map[string]float64 // CPU ms per pod, by process
	apiCalls      map[string]float64 // kube-apiserver requests per pod, by client, verb and resource
	extThreads    map[string]float64 // the extender's CPU ms per pod, by thread group (live at the end)
	gcCount       int
	gcMs          float64
	load          string
	aligned, pods int
	doubleBooked  int
	pending       int       // pods left unschedulable (DRA runs)
	round         int       // runs s and s0: which run of -pods since the takeover (from 1)
	takeover      *takeover // runs s and s0, round 1: how the standby came to lead
}

// span is one class of pods: from the first creation to the last binding.
type span struct {
	pods        int
	first, last time.Time
}

func (s span) seconds() float64 { return s.last.Sub(s.first).Seconds() }

func (r result) podsPerSecond() float64 { return float64(r.device.pods) / r.device.seconds() }

// run measures one run (a, b, c or f) of podCount device pods at the current cluster size; label
// names its pods and its kube-scheduler's directory.
func (b *bench) run(ctx context.Context, run, label string, nodes, podCount int) (result, error) {
	if err := b.clear(ctx); err != nil {
		return result{}, err
	}
	if tandemRun(run) {
		if err := b.waitExtenderNodes(ctx, nodes+len(b.templates)); err != nil {
			return result{}, err
		}
	}
	target, err := b.extenderTarget(run)
	if err != nil {
		return result{}, err
	}
	id := fmt.Sprintf("%s-%d", label, nodes)
	sched, schedURL, err := b.startScheduler(ctx, id, target)
	if err != nil {
		return result{}, err
	}
	defer sched.Stop(5 * time.Second)
	pids := map[string]int{
		"kube-scheduler": sched.Pid(), "extender": b.extender.Pid(),
		"kube-apiserver": controlPlanePid("kube-apiserver", b.env.Dir), "etcd": controlPlanePid("etcd", b.env.Dir),
		toolProcess: os.Getpid(),
	}
	res := result{run: run, nodes: nodes, qps: b.schedulerQPS(), cpuPerPod: map[string]float64{}}
	pods, claims := b.pods(id, podCount, run)
	before, err := b.observe(schedURL, pids)
	if err != nil {
		return res, err
	}
	_, _, gcStart := gcPauses(b.gcLog, 0)
	proxy := b.proxyOf(run)
	proxy.take()
	var profiled <-chan struct{}
	if b.o.profileDir != "" {
		profiled = profileScheduler(schedURL, b.o.profileDir, id, b.o.profileSecs)
	}
	created, bound, pending, err := b.createAndWait(ctx, pods, claims, sched, isDRA(run))
	if err != nil {
		return res, err
	}
	if profiled != nil {
		<-profiled
	}
	after, err := b.observe(schedURL, pids)
	if err != nil {
		return res, err
	}
	res.load = loadAverage()
	res.gcCount, res.gcMs, _ = gcPauses(b.gcLog, gcStart)
	res.seen = proxy.take()
	res.device, res.cpu = spans(pods, created, bound)
	res.pending = pending
	b.figures(&res, before, after, len(bound))
	return res, b.verify(ctx, &res, tandemRun(run))
}

// snapshot is what is read before and after a run.
type snapshot struct {
	sched, ext series
	cpu        map[string]float64
	extThreads map[string]float64
	api        series
}

func (b *bench) observe(schedURL string, pids map[string]int) (*snapshot, error) {
	s := &snapshot{cpu: map[string]float64{}}
	var err error
	if s.sched, err = scrape(schedURL + "/metrics"); err != nil {
		return nil, err
	}
	if s.ext, err = scrape(b.inspectionURL + "/metrics"); err != nil {
		return nil, err
	}
	for name, pid := range pids {
		s.cpu[name] = cpuSeconds(pid)
	}
	s.extThreads = threadCPU(pids["extender"])
	raw, err := b.c.Kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		return nil, fmt.Errorf("kube-apiserver /metrics: %w", err)
	}
	if s.api, err = parseSeries(bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("kube-apiserver /metrics: %w", err)
	}
	return s, nil
}

func (b *bench) figures(r *result, before, after *snapshot, pods int) {
	const ep = "scheduler_framework_extension_point_duration_seconds"
	r.algorithmMs = meanMs(before.sched, after.sched, "scheduler_scheduling_algorithm_duration_seconds")
	attempts := after.sched.sum("scheduler_scheduling_algorithm_duration_seconds_count") -
		before.sched.sum("scheduler_scheduling_algorithm_duration_seconds_count")
	if attempts > 0 {
		var total float64
		for _, point := range []string{"PreFilter", "Filter", "PreScore", "Score"} {
			w := `extension_point="` + point + `"`
			total += after.sched.sum(ep+"_sum", w) - before.sched.sum(ep+"_sum", w)
		}
		r.frameworkMs = 1000 * total / attempts
	}
	r.schedBindMs = meanMs(before.sched, after.sched, ep, `extension_point="Bind"`)
	r.own = map[string]latency{}
	for _, verb := range []string{"filter", "prioritize", "bind"} {
		w := `verb="` + verb + `"`
		n := after.ext.sum("tandem_extender_request_seconds_count", w) - before.ext.sum("tandem_extender_request_seconds_count", w)
		r.own[verb] = latency{
			n:    int(n),
			mean: meanMs(before.ext, after.ext, "tandem_extender_request_seconds", w),
			p99:  quantileMs(before.ext, after.ext, "tandem_extender_request_seconds", 0.99, w),
		}
	}
	for _, p := range processes {
		r.cpuPerPod[p] = 1000 * (after.cpu[p] - before.cpu[p]) / float64(pods)
	}
	r.apiCalls = apiCallsPerPod(before.api, after.api, pods)
	r.extThreads = map[string]float64{}
	var live float64
	for group, after := range after.extThreads {
		if d := 1000 * (after - before.extThreads[group]) / float64(pods); d >= 0.05 && group != "(whole process)" {
			r.extThreads[group] = d
			live += d
		}
	}
	if ended := r.cpuPerPod["extender"] - live; ended >= 0.05 {
		r.extThreads["(threads that ended during the run)"] = ended
	}
}

// pods builds the run's pods: the device mix, and for run c as many CPU-only pods interleaved; in the
// DRA runs each device pod asks its devices through a claim of its own, returned by pod name.
func (b *bench) pods(id string, count int, run string) ([]*corev1.Pod, map[string]*resourcev1.ResourceClaim) {
	rng := rand.New(rand.NewSource(b.o.seed))
	withCPU := run == "c"
	var out []*corev1.Pod
	claims := map[string]*resourcev1.ResourceClaim{}
	for i := 0; i < count; i++ {
		s := mix[rng.Intn(len(mix))]
		p := b.pod(fmt.Sprintf("%s-gpu-%04d", id, i), s)
		switch {
		case run == runDRAExt:
			extPod(p, s)
		case isDRA(run):
			draPod(p, s)
			claims[p.Name] = b.claimFor(run, p, s)
		}
		out = append(out, p)
		if withCPU && i < b.o.cpuPods {
			out = append(out, b.pod(fmt.Sprintf("%s-cpu-%04d", id, i), shape{}))
		}
	}
	for i := count; withCPU && i < b.o.cpuPods; i++ {
		out = append(out, b.pod(fmt.Sprintf("%s-cpu-%04d", id, i), shape{}))
	}
	return out, claims
}

func (b *bench) pod(name string, s shape) *corev1.Pod {
	limits := corev1.ResourceList{}
	if s.gpus > 0 {
		limits["nvidia.com/gpu"] = *resource.NewQuantity(int64(s.gpus), resource.DecimalSI)
		limits["rdma/hca"] = *resource.NewQuantity(int64(s.hcas), resource.DecimalSI)
	}
	ann := map[string]string{}
	if s.alignment != "" {
		ann["tandem.dev/alignment"] = s.alignment
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Annotations: ann},
		Spec: corev1.PodSpec{
			SchedulerName: b.schedName,
			Containers: []corev1.Container{{
				Name: "main", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{
						corev1.ResourceCPU:    resource.MustParse("100m"),
						corev1.ResourceMemory: resource.MustParse("128Mi"),
					},
					Limits: limits,
				},
			}},
		},
	}
}

// createAndWait creates the pods from 16 workers and returns when each was first seen bound.
//
// With settle (the DRA runs, whose claims some shapes cannot meet on any machine: docs/performance.md)
// a pod kube-scheduler has found unschedulable counts as settled, and the run ends when every pod is
// bound or settled so; pending says how many were not bound then.
func (b *bench) createAndWait(ctx context.Context, pods []*corev1.Pod, claims map[string]*resourcev1.ResourceClaim, sched *harness.Proc, settle bool) (created, bound map[string]time.Time, pending int, err error) {
	var mu sync.Mutex
	bound, created = map[string]time.Time{}, map[string]time.Time{}
	unschedulable := map[string]bool{}
	seen := func(obj any) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		if p.Spec.NodeName == "" {
			if settle && isUnschedulable(p) {
				unschedulable[p.Name] = true
			}
			return
		}
		if _, done := bound[p.Name]; !done {
			bound[p.Name] = now
		}
		delete(unschedulable, p.Name)
	}
	f := informers.NewSharedInformerFactoryWithOptions(b.c.Kube, 0, informers.WithNamespace(namespace))
	inf := f.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: seen, UpdateFunc: func(_, obj any) { seen(obj) },
	}); err != nil {
		return nil, nil, 0, err
	}
	stop := make(chan struct{})
	defer close(stop)
	f.Start(stop)
	f.WaitForCacheSync(stop)
	if err := b.create(ctx, pods, claims, created, &mu); err != nil {
		return nil, nil, 0, err
	}
	// Every pod bound, or none more for 2 minutes (a stuck run names why), or kube-scheduler gone.
	last, progress := 0, time.Now()
	err = harness.Eventually(ctx, 50*time.Millisecond, b.o.timeout, func(ctx context.Context) error {
		mu.Lock()
		n, waiting := len(bound), len(unschedulable)
		mu.Unlock()
		if n+waiting == len(pods) {
			return nil
		}
		if n != last {
			last, progress = n, time.Now()
		}
		switch {
		case !sched.Running():
			return harness.Permanent(fmt.Errorf("kube-scheduler exited with %d of %d pods bound", n, len(pods)))
		case time.Since(progress) > 2*time.Minute:
			return harness.Permanent(fmt.Errorf("%d of %d pods bound, none more for %s", n, len(pods), time.Since(progress).Round(time.Second)))
		}
		return fmt.Errorf("%d of %d pods bound", n, len(pods))
	})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%w (%s); see %s and logs/extender.log", err, b.whyPending(ctx), sched.Log)
	}
	mu.Lock()
	defer mu.Unlock()
	return created, bound, len(pods) - len(bound), nil
}

// create creates the pods from 16 workers, each pod's claim (if any) just before it; a pod counts as
// created when its claim's creation began.
func (b *bench) create(ctx context.Context, pods []*corev1.Pod, claims map[string]*resourcev1.ResourceClaim, created map[string]time.Time, mu *sync.Mutex) error {
	return inParallel(pods, func(p *corev1.Pod) error {
		t := time.Now()
		if c := claims[p.Name]; c != nil {
			if _, err := b.c.Kube.ResourceV1().ResourceClaims(namespace).Create(ctx, c, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create claim %s: %w", c.Name, err)
			}
		}
		if _, err := b.c.Kube.CoreV1().Pods(namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create pod %s: %w", p.Name, err)
		}
		mu.Lock()
		created[p.Name] = t
		mu.Unlock()
		return nil
	})
}

// spans splits the run's bound pods into its device pods and its CPU-only pods.
func spans(pods []*corev1.Pod, created, bound map[string]time.Time) (device, cpu span) {
	for _, p := range pods {
		s := &device
		if _, asks := p.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]; !asks && len(p.Spec.ResourceClaims) == 0 {
			s = &cpu
		}
		c, t := created[p.Name], bound[p.Name]
		if t.IsZero() {
			continue // left unschedulable (a DRA run)
		}
		if s.pods == 0 || c.Before(s.first) {
			s.first = c
		}
		if t.After(s.last) {
			s.last = t
		}
		s.pods++
	}
	return device, cpu
}

// clear deletes the previous run's pods (at once: no kubelet will confirm) and waits until the
// extender holds no assumption for them.
func (b *bench) clear(ctx context.Context) error {
	zero := int64(0)
	err := b.c.Kube.CoreV1().Pods(namespace).DeleteCollection(ctx,
		metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("delete the previous run's pods: %w", err)
	}
	if err := b.clearClaims(ctx); err != nil {
		return err
	}
	return harness.Eventually(ctx, 200*time.Millisecond, time.Minute, func(ctx context.Context) error {
		list, err := b.c.Kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		s, err := scrape(b.inspectionURL + "/metrics")
		if err != nil {
			return err
		}
		if assumed := s.sum("tandem_extender_assumed_allocations"); len(list.Items) > 0 || assumed > 0 {
			return fmt.Errorf("after deleting the previous run's pods, %d remain and the extender still assumes %.0f plans",
				len(list.Items), assumed)
		}
		return nil
	})
}

// waitExtenderNodes waits until the extender's informers hold every node with its topology.
func (b *bench) waitExtenderNodes(ctx context.Context, want int) error {
	return b.waitExtenderMetric(ctx, "tandem_extender_nodes", want, 5*time.Minute)
}

// waitExtenderMetric waits until the extender's /metrics shows at least want for a series, failing
// at once when the extender exits.
func (b *bench) waitExtenderMetric(ctx context.Context, metric string, want int, limit time.Duration) error {
	return harness.Eventually(ctx, 250*time.Millisecond, limit, func(context.Context) error {
		s, err := scrape(b.inspectionURL + "/metrics")
		if err != nil {
			return err
		}
		have := int(s.sum(metric))
		switch {
		case !b.extender.Running():
			return harness.Permanent(fmt.Errorf("the extender exited at %s %d of %d; see %s", metric, have, want, b.extender.Log))
		case have < want:
			return fmt.Errorf("the extender's %s is %d of %d; see %s", metric, have, want, b.extender.Log)
		}
		return nil
	})
}

// whyPending is kube-scheduler's reason for one pod it has not bound.
func (b *bench) whyPending(ctx context.Context) string {
	list, err := b.c.Kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName="})
	if err != nil || len(list.Items) == 0 {
		return "no pending pod found"
	}
	p := list.Items[0]
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return fmt.Sprintf("pod %s: %s", p.Name, c.Message)
		}
	}
	return fmt.Sprintf("pod %s: not tried yet", p.Name)
}

// isUnschedulable says whether kube-scheduler has set the pod's PodScheduled condition to
// Unschedulable.
func isUnschedulable(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// apiCallsPerPod counts kube-apiserver's requests during a run (apiserver_request_total) per pod,
// by verb, resource and subresource; WATCH streams are counted once, their events not.
func apiCallsPerPod(before, after series, pods int) map[string]float64 {
	const name = "apiserver_request_total"
	out := map[string]float64{}
	for k, v := range after {
		if !strings.HasPrefix(k, name+"{") {
			continue
		}
		if d := v - before[k]; d > 0 {
			what := label(k, "verb") + " " + label(k, "resource")
			if sub := label(k, "subresource"); sub != "" {
				what += "/" + sub
			}
			out[what] += d / float64(pods)
		}
	}
	return out
}
