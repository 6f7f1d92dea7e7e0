//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Each XE8640 has exactly three GPU+HCA pairs under a switch, so N of them hold exactly 3N aligned
// 1 GPU + 1 HCA pods: the count that must be bound once scheduling resumes, with nothing booked twice.
func TestExtenderKilledAndRestartedMidRun(t *testing.T) {
	cl.group(t, "restart", xe8640, xe8640, xe8640, xe8640)
	var specs []podSpec
	for i := 0; i < 30; i++ {
		specs = append(specs, podSpec{name: fmt.Sprintf("pair-%02d", i), gpus: 1, hcas: 1})
	}
	cl.submit(t, "restart", specs...)
	// Kill the extender (SIGKILL: no shutdown hook) as soon as scheduling is under way.
	waitBoundCount(t, "restart", 3, 60*time.Second)
	cl.mu.Lock()
	ext := cl.extenders["extender-0"]
	cl.mu.Unlock()
	ext.Kill()
	t.Logf("extender killed with %d pods bound", boundCount(t, "restart"))
	time.Sleep(2 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cl.startExtenders(ctx, "extender-0"); err != nil {
		t.Fatal(err)
	}
	cl.settle(t, "restart", 12, 30*time.Second, 3*time.Minute)
	bound := cl.assertNoDoubleBooking(t, "restart")
	if bound != 12 {
		t.Fatalf("%d pods bound after the restart; 4 XE8640 hold exactly 12 aligned 1+1 pods", bound)
	}
}

func TestLeaderKilledWithTwoReplicasTheOtherTakesOver(t *testing.T) {
	cl.group(t, "leader", xe8640)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cl.startExtenders(ctx, "extender-1"); err != nil {
		t.Fatal(err)
	}
	leader := cl.service.Ready()
	cl.mu.Lock()
	var victim, survivor string
	for name := range cl.extPorts {
		if name == leader {
			victim = name
		} else {
			survivor = name
		}
	}
	p := cl.extenders[victim]
	cl.mu.Unlock()
	if victim == "" || survivor == "" {
		t.Fatalf("cannot tell the leader (%s) among %v", leader, cl.extPorts)
	}
	p.Kill()
	t0 := time.Now()
	for cl.service.Ready() != survivor {
		if time.Since(t0) > 90*time.Second {
			t.Fatalf("after killing leader %s, %s did not become ready (leader) within 90 s; see logs/%s.log", victim, survivor, survivor)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("leader %s killed; %s took over (ready) after %.1f s", victim, survivor, time.Since(t0).Seconds())
	cl.submit(t, "leader", podSpec{name: "after-failover", gpus: 1, hcas: 1})
	pod := cl.waitBound(t, "leader", "after-failover", 90*time.Second)
	if planOf(t, pod) == nil {
		t.Fatalf("pod bound by the new leader without a plan")
	}
	cl.assertNoDoubleBooking(t, "leader")
}

func boundCount(t *testing.T, ns string) int {
	t.Helper()
	return cl.assertNoDoubleBookingQuiet(ns)
}

func waitBoundCount(t *testing.T, ns string, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for boundCount(t, ns) < n {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d pods bound in %s within %s", n, ns, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
