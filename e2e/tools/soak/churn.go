package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
)

const namespace = "soak"

// shape is what a soak pod asks for.
type shape struct {
	gpus, hcas      int
	alignment, mode string
}

var shapes = []shape{
	{1, 1, "switch", "required"}, {2, 2, "switch", "required"}, {1, 1, "numa", "required"},
	{2, 1, "switch", "preferred"}, {1, 1, "root-complex", "required"}, {2, 0, "", ""}, {0, 1, "", ""},
}

// churn drives pods through the extender as kube-scheduler would, and keeps the ledger of the plans
// of every bound pod: each new plan is checked against all those held.
type churn struct {
	c     *harness.Clients
	verbs *verbs
	nodes []string

	mu          sync.Mutex
	ledger      *harness.Ledger
	live        []*corev1.Pod // bound, oldest first
	pending     []job
	clashes     []string
	retries     int
	unplaceable int
	errors      []string
}

// maxTries is how often a pod is offered to the extender before the soak deletes it unplaced.
const maxTries = 20

// job is a pod to place: created on its first attempt, retried while no node takes it, as
// kube-scheduler retries an unschedulable pod.
type job struct {
	i     int
	pod   *corev1.Pod
	tries int
}

// attempt creates the job's pod if needed, filters, prioritizes and binds it, then checks its plan.
// A pod no node takes, or whose bind lost a race to another pod's, goes back to retry.
func (ch *churn) attempt(ctx context.Context, j job) {
	if j.pod == nil {
		pod, err := ch.c.Kube.CoreV1().Pods(namespace).Create(ctx, podOf(j.i), metav1.CreateOptions{})
		if err != nil {
			ch.fail(fmt.Errorf("create pod %d: %w", j.i, err))
			return
		}
		j.pod = pod
	}
	node, err := ch.place(ctx, j.pod)
	if err == nil && node != "" {
		err = ch.verbs.bind(ctx, j.pod, node)
		if err != nil && strings.Contains(err.Error(), "any more") {
			node, err = "", nil
		}
	}
	if err == nil && node == "" {
		ch.retry(ctx, j)
		return
	}
	if err != nil {
		ch.fail(err)
		ch.fail(ch.c.DeletePodNow(ctx, namespace, j.pod.Name))
		return
	}
	bound, err := ch.c.Kube.CoreV1().Pods(namespace).Get(ctx, j.pod.Name, metav1.GetOptions{})
	if err != nil {
		ch.fail(err)
		return
	}
	ch.record(bound)
}

// retry queues the job for the next wave, or gives up on it after maxTries.
func (ch *churn) retry(ctx context.Context, j job) {
	ch.mu.Lock()
	ch.retries++
	j.tries++
	giveUp := j.tries >= maxTries
	if giveUp {
		ch.unplaceable++
	} else {
		ch.pending = append(ch.pending, j)
	}
	ch.mu.Unlock()
	if giveUp {
		ch.fail(ch.c.DeletePodNow(ctx, namespace, j.pod.Name))
	}
}

// takePending hands out the pods waiting for a retry.
func (ch *churn) takePending() []job {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	out := ch.pending
	ch.pending = nil
	return out
}

// place is filter then prioritize; "" when no node passes the filter.
func (ch *churn) place(ctx context.Context, pod *corev1.Pod) (string, error) {
	f, err := ch.verbs.filter(ctx, pod, ch.nodes)
	if err != nil {
		return "", err
	}
	if f.Error != "" {
		return "", fmt.Errorf("filter %s: %s", pod.Name, f.Error)
	}
	if f.NodeNames == nil || len(*f.NodeNames) == 0 {
		return "", nil
	}
	scores, err := ch.verbs.prioritize(ctx, pod, *f.NodeNames)
	if err != nil {
		return "", err
	}
	return best(scores, *f.NodeNames), nil
}

func (ch *churn) record(p *corev1.Pod) {
	pl, err := harness.PlanOf(p)
	if err == nil && (pl == nil || pl.Node != p.Spec.NodeName) {
		err = fmt.Errorf("pod %s bound to %q has plan %+v", p.Name, p.Spec.NodeName, pl)
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if err != nil {
		ch.errors = append(ch.errors, err.Error())
		return
	}
	ch.clashes = append(ch.clashes, ch.ledger.Add(p.Name, pl)...)
	ch.live = append(ch.live, p)
}

// trim deletes the oldest bound pods until at most keep are left.
func (ch *churn) trim(ctx context.Context, keep int) {
	ch.mu.Lock()
	var gone []*corev1.Pod
	if n := len(ch.live) - keep; n > 0 {
		gone, ch.live = ch.live[:n], append([]*corev1.Pod(nil), ch.live[n:]...)
	}
	ch.mu.Unlock()
	for _, p := range gone {
		ch.fail(ch.c.DeletePodNow(ctx, namespace, p.Name))
		ch.mu.Lock()
		ch.ledger.Remove(p.Name)
		ch.mu.Unlock()
	}
}

// audit checks the plans of every bound pod the API server holds against each other, from scratch.
func (ch *churn) audit(ctx context.Context) error {
	list, err := ch.c.Kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	fresh := harness.NewLedger()
	var clashes []string
	for i := range list.Items {
		p := &list.Items[i]
		if p.Spec.NodeName == "" {
			continue
		}
		pl, err := harness.PlanOf(p)
		if err != nil || pl == nil {
			return fmt.Errorf("bound pod %s without a readable plan: %v", p.Name, err)
		}
		clashes = append(clashes, fresh.Add(p.Name, pl)...)
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	ch.clashes = append(ch.clashes, clashes...)
	if fresh.Pods() != ch.ledger.Pods() {
		return fmt.Errorf("the API server holds %d planned pods, the soak %d", fresh.Pods(), ch.ledger.Pods())
	}
	return nil
}

func (ch *churn) fail(err error) {
	if err == nil {
		return
	}
	ch.mu.Lock()
	ch.errors = append(ch.errors, err.Error())
	ch.mu.Unlock()
}

func podOf(i int) *corev1.Pod {
	s := shapes[i%len(shapes)]
	limits, ann := harness.DeviceAsk(s.gpus, s.hcas, s.alignment, s.mode)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("soak-%05d", i), Namespace: namespace, Annotations: ann},
		Spec: corev1.PodSpec{
			SchedulerName: "tandem-scheduler",
			Containers: []corev1.Container{{Name: "work", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Limits: limits}}},
		},
	}
}

// waiting is how many pods wait for a retry.
func (ch *churn) waiting() int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return len(ch.pending)
}
