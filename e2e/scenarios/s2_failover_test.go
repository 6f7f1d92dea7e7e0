//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
)

// Each XE8640 has exactly three GPU+HCA pairs under a switch, so N of them hold exactly 3N aligned
// 1 GPU + 1 HCA pods: the count that must be bound once scheduling resumes, with nothing booked twice.
func TestExtenderKilledAndRestartedMidRun(t *testing.T) {
	cl.use(t, "restart")
	cl.group(t, "restart", xe8640, xe8640, xe8640, xe8640)
	var specs []podSpec
	for i := 0; i < 30; i++ {
		specs = append(specs, podSpec{name: fmt.Sprintf("pair-%02d", i), gpus: 1, hcas: 1})
	}
	cl.submit(t, "restart", specs...)
	// Kill the extender (SIGKILL: no shutdown hook), every replica of it, as soon as scheduling is
	// under way.
	cl.waitBoundCount(t, "restart", 3, 60*time.Second)
	killed := cl.runningExtenders()
	for _, name := range killed {
		cl.mu.Lock()
		p := cl.extenders[name]
		cl.mu.Unlock()
		p.Kill()
	}
	bound, err := cl.boundCount(context.Background(), "restart")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("extender replicas %v killed with %d pods bound", killed, bound)
	// While it is down kube-scheduler's calls fail: a pod's PodScheduled condition says SchedulerError.
	eventually(t, time.Minute, "kube-scheduler fails a pod on the killed extender", func(ctx context.Context) error {
		list, err := cl.c.Kube.CoreV1().Pods("restart").List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for i := range list.Items {
			if schedulerError(&list.Items[i]) {
				return nil
			}
		}
		return fmt.Errorf("no pod of restart has PodScheduled reason SchedulerError")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cl.startExtenders(ctx, "extender-0"); err != nil {
		t.Fatal(err)
	}
	// Positive signal first: kube-scheduler has bound or found no node for every pod; then the count.
	cl.waitBoundCount(t, "restart", 12, 3*time.Minute)
	cl.waitDecided(t, "restart", 3*time.Minute)
	if bound := cl.assertNoDoubleBooking(t, "restart"); bound != 12 {
		t.Fatalf("%d pods bound after the restart; 4 XE8640 hold exactly 12 aligned 1+1 pods", bound)
	}
}

// schedulerError: kube-scheduler's last attempt at the pod failed with an error (an extender it could
// not reach), not for want of a node.
func schedulerError(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonSchedulerError
		}
	}
	return false
}

func TestLeaderKilledWithTwoReplicasTheOtherTakesOver(t *testing.T) {
	cl.use(t, "leader")
	cl.group(t, "leader", xe8640)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Two replicas: whichever of extender-0 and extender-1 does not run is started.
	for _, name := range []string{"extender-0", "extender-1"} {
		cl.mu.Lock()
		p := cl.extenders[name]
		cl.mu.Unlock()
		if p == nil || !p.Running() {
			if err := cl.startExtenders(ctx, name); err != nil {
				t.Fatal(err)
			}
		}
	}
	victim := cl.service.Ready()
	var survivor string
	for _, name := range cl.runningExtenders() {
		if name != victim {
			survivor = name
		}
	}
	if victim == "" || survivor == "" {
		t.Fatalf("cannot tell the leader (%q) among the running replicas %v", victim, cl.runningExtenders())
	}
	// The standby rehearses kube-scheduler's cycle on its own state before it is needed.
	err := harness.Eventually(ctx, 200*time.Millisecond, 90*time.Second, func(context.Context) error {
		n, err := harness.Metric(inspectionURL(survivor)+"/metrics", "tandem_extender_standby_rehearsal_cycles_total", nil)
		if err != nil {
			return err
		}
		if n != standbyRehearsalCycles {
			return fmt.Errorf("standby %s rehearsed %.0f of %d cycles", survivor, n, standbyRehearsalCycles)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%v; see logs/%s.log", err, survivor)
	}
	cl.mu.Lock()
	p := cl.extenders[victim]
	cl.mu.Unlock()
	p.Kill()
	t0 := time.Now()
	err = harness.Eventually(ctx, 100*time.Millisecond, 90*time.Second, func(context.Context) error {
		if ready := cl.service.Ready(); ready != survivor {
			return fmt.Errorf("the Service routes to %q", ready)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("after killing leader %s, %s did not become ready (leader): %v; see logs/%s.log", victim, survivor, err, survivor)
	}
	t.Logf("leader %s killed; %s took over (ready) after %.1f s", victim, survivor, time.Since(t0).Seconds())
	cl.submit(t, "leader", podSpec{name: "after-failover", gpus: 1, hcas: 1})
	pod := cl.waitBound(t, "leader", "after-failover", 90*time.Second)
	if planOf(t, pod) == nil {
		t.Fatalf("pod bound by the new leader without a plan")
	}
	cl.assertNoDoubleBooking(t, "leader")
}
