//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"tandem.dev/e2e/internal/harness"
	"tandem.dev/e2e/internal/nodeside"
)

// The faults operators meet with the RDMA device plugins they run today, each against the kubelet's
// own device manager and Tandem's real plugin jar on one XE8640 node:
//   - KubeletRestart: the plugin re-registers within 2 s (Mellanox shared plugin #48/#74: capacity
//     stayed 0 after a kubelet restart), capacity comes back to its full value and stays there, and a
//     running pod keeps its devices (PodResources, checkpoint);
//   - RollingUpdate: two plugin processes overlap on one socket path; the one going away removes
//     nothing of the other's (Mellanox shared plugin #319: capacity stuck at 0);
//   - PortFlap: an HCA port goes down and up again; the device turns Unhealthy, then Healthy, with no
//     restart (NVIDIA's plugin never marks a device healthy again).
//
// They run in this order on one node: each leaves the plugin registered for the next.
func TestDevicePluginFaults(t *testing.T) {
	if os.Getenv("E2E_NODESIDE") != "1" {
		t.Fatal("the node side needs a private mount namespace with a tmpfs on /var/lib/kubelet; run it with e2e/run")
	}
	const ns = "faults"
	node := cl.group(t, ns, xe8640)[0]
	topo, err := cl.c.GetTopology(context.Background(), node)
	if err != nil {
		t.Fatal(err)
	}
	var hcas []nodeside.Device
	for _, d := range topo.Spec.Devices {
		if d.Kind == "HCA" {
			hcas = append(hcas, nodeside.Device{ID: d.ID, NUMA: d.NumaNode})
		}
	}
	full := len(hcas)
	// A kubelet of its own: no checkpoint left by an earlier scenario.
	_ = os.Remove(filepath.Join(nodeside.PluginDir, "kubelet_internal_checkpoint"))
	prSock := filepath.Join(cl.env.Dir, "pod-resources", "kubelet.sock")
	kubelet, err := nodeside.Start(prSock)
	if err != nil {
		t.Fatal(err)
	}
	defer kubelet.Stop()
	// Port states re-read every second (the default is 10 s), so that a flap is seen quickly.
	current := cl.startPlugin(t, node, xe8640, hcas, nil, "device-plugin-faults-a", "--health-interval-seconds", "1")
	if err := kubelet.WaitHealthy("rdma/hca", full, 60*time.Second); err != nil {
		t.Fatalf("%v; see %s", err, current.Log)
	}

	outer := t
	t.Run("KubeletRestart", func(t *testing.T) {
		pod := cl.bindOne(t, ns, podSpec{name: "running", hcas: 2})
		got, err := kubelet.Admit(pod)
		if err != nil {
			t.Fatal(err)
		}
		held := sorted(got["main"]["rdma/hca"])
		registered := registrations(t, current)
		samples := kubelet.Sample("rdma/hca", 5*time.Millisecond)
		t0 := time.Now()
		if err := kubelet.Restart(); err != nil {
			t.Fatal(err)
		}
		tNew := time.Now() // the new device manager listens on a new kubelet.sock
		back := waitAllocatable(t, kubelet, full, 10*time.Second, current.Log)
		time.Sleep(time.Second) // keep sampling: capacity must stay at its full value
		s := samples.Stop()
		reregistered := back.Sub(tNew)
		zero, _, _ := nodeside.Below(s, full, true)
		t.Logf("kubelet restart: the old device manager stopped in %s; the plugin registered again %s after the new one "+
			"started; rdma/hca allocatable below %d for %s in all (%d readings every 5 ms)",
			tNew.Sub(t0).Round(time.Millisecond), reregistered.Round(time.Millisecond), full, zero.Round(time.Millisecond), len(s))
		if reregistered > 2*time.Second {
			t.Errorf("the plugin registered again %s after the kubelet restarted, want at most 2 s; see %s", reregistered, current.Log)
		}
		for _, r := range s {
			if r.At.After(back) && (r.Allocatable != full || r.Capacity != full) {
				t.Errorf("at %s, after the re-registration, rdma/hca capacity %d allocatable %d, want %d",
					r.At.Sub(tNew).Round(time.Millisecond), r.Capacity, r.Allocatable, full)
				break
			}
		}
		waitMetric(t, current, "tandem_device_plugin_registrations_total",
			map[string]string{"resource": "rdma/hca", "result": "registered"}, registered+1)
		// Exactly one re-registration: the new kubelet.sock and the ended stream are one restart.
		if n := registrations(t, current); n != registered+1 {
			t.Errorf("%v registrations after the kubelet restart, want one more than the %v before", n, registered)
		}
		// The running pod keeps its devices: the checkpoint the new device manager read, as PodResources
		// reports it to the agent and the plugin.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		devs, err := nodeside.PodDevices(ctx, prSock)
		if err != nil {
			t.Fatal(err)
		}
		if after := devs[ns+"/running/main"]["rdma/hca"]; strings.Join(after, ",") != strings.Join(held, ",") {
			t.Errorf("pod %s/running held %v before the kubelet restart and %v after it", ns, held, after)
		}
		// And a new pod gets the other HCAs.
		next := cl.bindOne(t, ns, podSpec{name: "after-restart", hcas: 2})
		got2, err := kubelet.Admit(next)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range got2["main"]["rdma/hca"] {
			for _, h := range held {
				if id == h {
					t.Errorf("%s given to pod after-restart while pod running holds it", id)
				}
			}
		}
		cl.deleteNow(t, ns, "running")
		cl.deleteNow(t, ns, "after-restart")
		kubelet.Forget(pod.UID)
		kubelet.Forget(next.UID)
	})

	t.Run("RollingUpdate", func(t *testing.T) {
		old := current
		samples := kubelet.Sample("rdma/hca", 5*time.Millisecond)
		// The new pod of a DaemonSet rolling update starts while the old one still runs: same
		// endpoint, same resource.
		next, err := cl.launchPlugin(node, xe8640, hcas, nil, "device-plugin-faults-b", "--health-interval-seconds", "1")
		if err != nil {
			t.Fatal(err)
		}
		outer.Cleanup(func() { next.Stop(10 * time.Second) }) // it serves the next subtest too
		waitReady(t, next, 60*time.Second)
		waitAllocatable(t, kubelet, full, 10*time.Second, next.Log)
		deadline := time.Now().Add(5 * time.Second)
		for {
			code, body, _ := harness.Get(old.ops + "/readyz")
			if code == 503 && strings.Contains(body, "another plugin process took over") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the old plugin did not notice the new one on its socket within 5 s (readyz %d %s); see %s", code, body, old.Log)
			}
			time.Sleep(50 * time.Millisecond)
		}
		tStop := time.Now()
		old.Stop(10 * time.Second)
		stopped := time.Now()
		if _, err := os.Stat(filepath.Join(nodeside.PluginDir, "tandem-rdma.sock")); err != nil {
			t.Errorf("after the old plugin stopped: %v; it removed the new plugin's socket", err)
		}
		back := waitAllocatable(t, kubelet, full, 10*time.Second, next.Log)
		waitReady(t, next, 10*time.Second)
		time.Sleep(time.Second)
		s := samples.Stop()
		var during []nodeside.Sample
		for _, r := range s {
			if !r.At.Before(tStop) {
				during = append(during, r)
			}
		}
		dip, first, _ := nodeside.Below(during, full, true)
		capDip, _, _ := nodeside.Below(s, full, false)
		t.Logf("rolling update: old plugin stopped in %s; rdma/hca allocatable below %d for %s after its stop (first at +%s), "+
			"back at +%s; capacity below %d for %s over the whole overlap",
			stopped.Sub(tStop).Round(time.Millisecond), full, dip.Round(time.Millisecond), sinceOr(first, tStop),
			back.Sub(tStop).Round(time.Millisecond), full, capDip.Round(time.Millisecond))
		if capDip > 0 {
			t.Errorf("rdma/hca capacity fell below %d for %s during the overlap", full, capDip)
		}
		if back.Sub(stopped) > 2*time.Second {
			t.Errorf("rdma/hca allocatable back to %d only %s after the old plugin stopped, want at most 2 s; see %s",
				full, back.Sub(stopped), next.Log)
		}
		for _, r := range s {
			if r.At.After(back) && r.Allocatable != full {
				t.Errorf("rdma/hca allocatable %d at +%s, after it was back to %d", r.Allocatable, r.At.Sub(tStop), full)
				break
			}
		}
		current = next
	})

	t.Run("PortFlap", func(t *testing.T) {
		hca := hcas[len(hcas)-1].ID
		registered := registrations(t, current)
		state := filepath.Join(current.sysfs, "sys", "class", "infiniband", hca, "ports", "1", "state")
		t0 := time.Now()
		if err := os.WriteFile(state, []byte("1: DOWN\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := kubelet.WaitHealthy("rdma/hca", full-1, 10*time.Second); err != nil {
			t.Fatalf("port of %s down: %v; see %s", hca, err, current.Log)
		}
		down := time.Since(t0)
		if c, a := kubelet.Capacity("rdma/hca"); c != full || a != full-1 {
			t.Errorf("port of %s down: capacity %d allocatable %d, want %d and %d", hca, c, a, full, full-1)
		}
		t1 := time.Now()
		if err := os.WriteFile(state, []byte("4: ACTIVE\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := kubelet.WaitHealthy("rdma/hca", full, 10*time.Second); err != nil {
			t.Fatalf("port of %s up again: %v; see %s", hca, err, current.Log)
		}
		up := time.Since(t1)
		t.Logf("port flap of %s: Unhealthy in the device manager %s after the port went down, Healthy again %s after it came up (health re-read every 1 s)",
			hca, down.Round(time.Millisecond), up.Round(time.Millisecond))
		for to, want := range map[string]float64{"unhealthy": 1, "healthy": 1} {
			waitMetric(t, current, "tandem_device_plugin_health_transitions_total",
				map[string]string{"resource": "rdma/hca", "device": hca, "to": to}, want)
		}
		if n := registrations(t, current); n != registered || !current.Running() {
			t.Errorf("the flap restarted the plugin: registrations %v → %v, running %v", registered, n, current.Running())
		}
	})
}

// waitAllocatable waits until the device manager offers want healthy rdma/hca and returns when.
func waitAllocatable(t *testing.T, k *nodeside.Kubelet, want int, timeout time.Duration, log string) time.Time {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if _, a := k.Capacity("rdma/hca"); a == want {
			return time.Now()
		}
		if time.Now().After(deadline) {
			c, a := k.Capacity("rdma/hca")
			t.Fatalf("rdma/hca capacity %d allocatable %d after %s, want %d; see %s", c, a, timeout, want, log)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitReady waits for the plugin's /readyz to answer 200 (every resource registered).
func waitReady(t *testing.T, p *pluginProc, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		code, body, err := harness.Get(p.ops + "/readyz")
		if code == 200 {
			return
		}
		if !p.Running() || time.Now().After(deadline) {
			t.Fatalf("plugin %s not ready within %s (readyz %d %s %v); see %s", p.Name, timeout, code, body, err, p.Log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func registrations(t *testing.T, p *pluginProc) float64 {
	t.Helper()
	v, err := harness.Metric(p.ops+"/metrics", "tandem_device_plugin_registrations_total",
		map[string]string{"resource": "rdma/hca", "result": "registered"})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// waitMetric waits until the plugin's series reaches want (counters are scraped, not pushed).
func waitMetric(t *testing.T, p *pluginProc, name string, labels map[string]string, want float64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		v, err := harness.Metric(p.ops+"/metrics", name, labels)
		if err == nil && v == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s%v = %v (%v), want %v; see %s", name, labels, v, err, want, p.Log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func sorted(ids []string) []string {
	out := append([]string(nil), ids...)
	sort.Strings(out)
	return out
}

func sinceOr(at, from time.Time) string {
	if at.IsZero() {
		return "never"
	}
	return fmt.Sprint(at.Sub(from).Round(time.Millisecond))
}
