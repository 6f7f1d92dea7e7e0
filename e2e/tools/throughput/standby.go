package main

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
)

// The runs of the replica that takes over (issue #30): the extender is started again as a standby
// beside a Lease another identity holds, waits while its informers sync and then rehearses (s) or
// idles as long as the rehearsed one of the same size took (s0), takes the Lease when it is
// released and schedules -standby-pods device pods in runs of -pods, each measured.
const (
	runStandby     = "s"
	runStandbyIdle = "s0"
	// oldLeader is the identity that holds the Lease while the standby waits.
	oldLeader = "old-leader"
)

func isStandby(run string) bool { return run == runStandby || run == runStandbyIdle }

// tandemRun says whether Tandem's extender serves the run (its verbs, its plans checked).
func tandemRun(run string) bool {
	return run == "b" || run == "c" || run == runBaseline || run == runWithoutCache || isStandby(run)
}

// takeover is how a standby came to lead.
type takeover struct {
	cycles int           // rehearsal cycles asked (0: s0)
	waited time.Duration // informers synced → Lease released (rehearsing or idling)
	ready  time.Duration // Lease released → /readyz
}

// standbyRuns restarts the extender as a standby, hands it the Lease and measures its first
// -standby-pods device pods in runs of -pods.
func (b *bench) standbyRuns(ctx context.Context, run string, nodes int) ([]result, error) {
	t, err := b.takeOver(ctx, run, nodes)
	if err != nil {
		return nil, fmt.Errorf("the standby taking over: %w", err)
	}
	logf("run %s at %d nodes: %d rehearsal cycles, synced → released %.1f s, released → ready %.1f s",
		run, nodes, t.cycles, t.waited.Seconds(), t.ready.Seconds())
	var out []result
	for done, round := 0, 1; done < b.o.standbyPods; round++ {
		n := min(b.o.pods, b.o.standbyPods-done)
		res, err := b.run(ctx, run, fmt.Sprintf("%s-%d", run, round), nodes, n)
		if err != nil {
			return nil, fmt.Errorf("round %d: %w", round, err)
		}
		res.round = round
		if round == 1 {
			res.takeover = &t
		}
		logf("run %s #%d at %d nodes: %.1f pods/s", run, round, nodes, res.podsPerSecond())
		out = append(out, res)
		done += n
	}
	return out, nil
}

// takeOver stops the extender, has another identity hold the Lease (the Deployment's namespace and
// name, an hour long), starts the extender as a standby and waits until it holds every node and
// rehearsed (s) or idled as long as the last s at this size did (s0); then it deletes the Lease, as
// a leaving leader releases it, and waits until the standby leads and is Ready.
func (b *bench) takeOver(ctx context.Context, run string, nodes int) (takeover, error) {
	t := takeover{}
	if run == runStandby {
		t.cycles = b.o.rehearsalCycles
	}
	ns, name, err := leaseOf(b.own.docs)
	if err != nil {
		return t, err
	}
	b.extender.Stop(5 * time.Second)
	leases := b.c.Kube.CoordinationV1().Leases(ns)
	if err := leases.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return t, fmt.Errorf("delete Lease %s/%s: %w", ns, name, err)
	}
	now := metav1.NewMicroTime(time.Now())
	holder, duration := oldLeader, int32(3600)
	if _, err := leases.Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration,
			AcquireTime: &now, RenewTime: &now},
	}, metav1.CreateOptions{}); err != nil {
		return t, fmt.Errorf("create Lease %s/%s held by %s: %w", ns, name, oldLeader, err)
	}
	start := extenderStart{name: "extender-" + run, build: b.own, standby: true,
		extra: []string{fmt.Sprintf("--standby-rehearsal-cycles=%d", t.cycles)}}
	if err := b.startExtender(ctx, start); err != nil {
		return t, err
	}
	if err := b.waitExtenderNodes(ctx, nodes+len(b.templates)); err != nil {
		return t, err
	}
	if err := b.checkAOTCache(); err != nil {
		return t, err
	}
	synced := time.Now()
	if t.cycles > 0 {
		if err := b.waitExtenderMetric(ctx, "tandem_extender_standby_rehearsal_cycles_total", t.cycles, 10*time.Minute); err != nil {
			return t, err
		}
		b.rehearsed[nodes] = time.Since(synced)
	} else {
		select {
		case <-time.After(b.rehearsed[nodes]):
		case <-ctx.Done():
			return t, ctx.Err()
		}
	}
	t.waited = time.Since(synced)
	if err := leases.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return t, fmt.Errorf("release Lease %s/%s: %w", ns, name, err)
	}
	released := time.Now()
	if err := harness.WaitOK(ctx, b.extender, insecure, b.inspectionURL+"/readyz", 2*time.Minute); err != nil {
		return t, err
	}
	t.ready = time.Since(released)
	return t, nil
}
