//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
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
//   - RollingUpdate: two plugin processes overlap, each on a socket path of its own, both registered;
//     the one going away removes nothing of the other's (Mellanox shared plugin #319: capacity stuck
//     at 0), and the kubelet keeps or takes back the new one (1.37 keys plugins by socket path and
//     refuses a second registration on a path it knows, kubernetes#139338);
//   - PortFlap: an HCA port goes down and up again; the device turns Unhealthy, then Healthy, with no
//     restart (NVIDIA's plugin never marks a device healthy again).
//
// The node (its agent and NodeTopology) is the test's; each subtest starts a kubelet device side of its
// own and its own plugin, and stops them when it ends, so none depends on another having run.
func TestDevicePluginFaults(t *testing.T) {
	if os.Getenv("E2E_NODESIDE") != "1" {
		t.Fatal("the node side needs a private mount namespace with a tmpfs on /var/lib/kubelet; run it with e2e/run")
	}
	const ns = "faults"
	cl.use(t, ns)
	node := cl.group(t, ns, xe8640)[0]
	_, _, hcas := cl.devicesOf(t, node)
	full := len(hcas)
	prSock := filepath.Join(cl.env.Dir, "pod-resources", "kubelet.sock")
	// startDeviceSide starts a fresh device manager (no checkpoint) and Tandem's plugin, with port
	// states re-read every second (the default is 10 s) so that a flap is seen quickly, and waits until
	// the manager offers every HCA.
	startDeviceSide := func(t *testing.T, logName string) (*nodeside.Kubelet, *pluginProc) {
		t.Helper()
		kubelet := startKubelet(t, prSock)
		plugin := cl.startPlugin(t, node, xe8640, hcas, nil, logName, "--health-interval-seconds", "1")
		waitAllocatable(t, kubelet, full, 60*time.Second, plugin.Log)
		return kubelet, plugin
	}

	t.Run("KubeletRestart", func(t *testing.T) {
		kubelet, plugin := startDeviceSide(t, "device-plugin-faults-restart")
		pod := cl.bindOne(t, ns, podSpec{name: "running", hcas: 2})
		t.Cleanup(func() { cl.deleteNow(t, ns, "running") })
		got, err := kubelet.Admit(pod)
		if err != nil {
			t.Fatal(err)
		}
		held := sorted(got["main"]["rdma/hca"])
		registered := registrations(t, plugin)
		samples := kubelet.Sample("rdma/hca", 5*time.Millisecond)
		t0 := time.Now()
		if err := kubelet.Restart(); err != nil {
			t.Fatal(err)
		}
		tNew := time.Now() // the new device manager listens on a new kubelet.sock
		back := waitAllocatable(t, kubelet, full, 10*time.Second, plugin.Log)
		reregistered := back.Sub(tNew)
		if reregistered > 2*time.Second {
			t.Errorf("the plugin registered again %s after the kubelet restarted, want at most 2 s; see %s", reregistered, plugin.Log)
		}
		waitMetric(t, plugin, "tandem_device_plugin_registrations_total",
			map[string]string{"resource": "rdma/hca", "result": "registered"}, registered+1)
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
		// And a new pod gets the other HCAs: the new device manager allocates through the plugin's new
		// registration. That round trip is the positive signal the absences below wait for.
		next := cl.bindOne(t, ns, podSpec{name: "after-restart", hcas: 2})
		t.Cleanup(func() { cl.deleteNow(t, ns, "after-restart") })
		got2, err := kubelet.Admit(next)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range got2["main"]["rdma/hca"] {
			if contains(held, id) {
				t.Errorf("%s given to pod after-restart while pod running holds it", id)
			}
		}
		s := samples.Stop()
		zero, _, _ := nodeside.Below(s, full, true)
		t.Logf("kubelet restart: the old device manager stopped in %s; the plugin registered again %s after the new one "+
			"started; rdma/hca allocatable below %d for %s in all (%d readings every 5 ms)",
			tNew.Sub(t0).Round(time.Millisecond), reregistered.Round(time.Millisecond), full, zero.Round(time.Millisecond), len(s))
		// Capacity stayed at its full value from the re-registration to the new pod's admission, and
		// that took one registration: the new socket and the ended stream are one restart.
		for _, r := range s {
			if r.At.After(back) && (r.Allocatable != full || r.Capacity != full) {
				t.Errorf("at %s, after the re-registration, rdma/hca capacity %d allocatable %d, want %d",
					r.At.Sub(tNew).Round(time.Millisecond), r.Capacity, r.Allocatable, full)
				break
			}
		}
		if n := registrations(t, plugin); n != registered+1 {
			t.Errorf("%v registrations after the kubelet restart, want one more than the %v before", n, registered)
		}
		kubelet.Forget(pod.UID)
		kubelet.Forget(next.UID)
	})

	t.Run("RollingUpdate", func(t *testing.T) {
		kubelet, old := startDeviceSide(t, "device-plugin-faults-rolling-old")
		oldSockets := rdmaSockets(t)
		if len(oldSockets) != 1 {
			t.Fatalf("the old plugin serves on %v, want one tandem-rdma-<id>.sock; see %s", oldSockets, old.Log)
		}
		samples := kubelet.Sample("rdma/hca", 5*time.Millisecond)
		// The new pod of a DaemonSet rolling update starts while the old one still runs: same
		// --endpoint, same resource.
		next := cl.startPlugin(t, node, xe8640, hcas, nil, "device-plugin-faults-rolling-new", "--health-interval-seconds", "1")
		waitReady(t, next, 60*time.Second)
		waitAllocatable(t, kubelet, full, 10*time.Second, next.Log)
		both := rdmaSockets(t)
		var newSocket string
		for _, s := range both {
			if s != oldSockets[0] {
				newSocket = s
			}
		}
		if len(both) != 2 || newSocket == "" {
			t.Fatalf("sockets while both plugins run: %v, want the old one's %s and one of the new one's; see %s",
				both, oldSockets[0], next.Log)
		}
		// Both stay registered: neither takes anything from the other.
		if code, body, err := harness.Get(old.ops + "/readyz"); code != http.StatusOK {
			t.Fatalf("the old plugin's readyz while the new one runs: %d %s %v; see %s", code, body, err, old.Log)
		}
		tStop := time.Now()
		old.Stop(10 * time.Second)
		stopped := time.Now()
		back := waitAllocatable(t, kubelet, full, 10*time.Second, next.Log)
		waitReady(t, next, 10*time.Second)
		// The old plugin removes its own socket and nothing of the new one's. A 1.34-1.36 kubelet
		// holds one client per resource and, when the old plugin's stream ends, closes the client it
		// holds by then: the new plugin's. The new plugin then serves and registers again, on a new
		// socket of its own (1.37 keys clients by socket and keeps it).
		after := rdmaSockets(t)
		if len(after) != 1 || after[0] == oldSockets[0] {
			t.Errorf("sockets after the old plugin stopped: %v, want one of the new plugin's (it served on %s; the old one's was %s)",
				after, newSocket, oldSockets[0])
		} else if after[0] != newSocket {
			t.Logf("the kubelet closed the new plugin's stream when the old one's ended; it registered again on %s", after[0])
		}
		// The positive signal the absences below wait for: the device manager allocates a pod's HCAs
		// through the new plugin.
		pod := cl.bindOne(t, ns, podSpec{name: "after-rollout", hcas: 2})
		t.Cleanup(func() { cl.deleteNow(t, ns, "after-rollout") })
		if _, err := kubelet.Admit(pod); err != nil {
			t.Fatalf("after the rollout: %v; see %s", err, next.Log)
		}
		kubelet.Forget(pod.UID)
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
	})

	t.Run("PortFlap", func(t *testing.T) {
		kubelet, plugin := startDeviceSide(t, "device-plugin-faults-flap")
		hca := hcas[len(hcas)-1].ID
		registered := registrations(t, plugin)
		state := filepath.Join(plugin.sysfs, "sys", "class", "infiniband", hca, "ports", "1", "state")
		t0 := time.Now()
		if err := os.WriteFile(state, []byte("1: DOWN\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := kubelet.WaitHealthy("rdma/hca", full-1, 10*time.Second); err != nil {
			t.Fatalf("port of %s down: %v; see %s", hca, err, plugin.Log)
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
			t.Fatalf("port of %s up again: %v; see %s", hca, err, plugin.Log)
		}
		up := time.Since(t1)
		t.Logf("port flap of %s: Unhealthy in the device manager %s after the port went down, Healthy again %s after it came up (health re-read every 1 s)",
			hca, down.Round(time.Millisecond), up.Round(time.Millisecond))
		for to, want := range map[string]float64{"unhealthy": 1, "healthy": 1} {
			waitMetric(t, plugin, "tandem_device_plugin_health_transitions_total",
				map[string]string{"resource": "rdma/hca", "device": hca, "to": to}, want)
		}
		if n := registrations(t, plugin); n != registered || !plugin.Running() {
			t.Errorf("the flap restarted the plugin: registrations %v → %v, running %v", registered, n, plugin.Running())
		}
	})
}

// rdmaSockets lists the rdma/hca plugin sockets in the plugin directory (tandem-rdma.sock, as
// earlier releases named it, or tandem-rdma-<12 hex digits>.sock, one per server), sorted.
func rdmaSockets(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(nodeside.PluginDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if rdmaSocketName.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

var rdmaSocketName = regexp.MustCompile(`^tandem-rdma(-[0-9a-f]{12})?\.sock$`)

// waitAllocatable waits until the device manager offers want healthy rdma/hca and returns when
// (read every 5 ms: the returned time is a measurement).
func waitAllocatable(t *testing.T, k *nodeside.Kubelet, want int, timeout time.Duration, log string) time.Time {
	t.Helper()
	var at time.Time
	err := harness.Eventually(context.Background(), 5*time.Millisecond, timeout, func(context.Context) error {
		if c, a := k.Capacity("rdma/hca"); a != want {
			return fmt.Errorf("rdma/hca capacity %d allocatable %d, want %d", c, a, want)
		}
		at = time.Now()
		return nil
	})
	if err != nil {
		t.Fatalf("%v; see %s", err, log)
	}
	return at
}

// waitReady waits for the plugin's /readyz to answer 200 (every resource registered).
func waitReady(t *testing.T, p *pluginProc, timeout time.Duration) {
	t.Helper()
	err := harness.Eventually(context.Background(), 50*time.Millisecond, timeout, func(context.Context) error {
		code, body, err := harness.Get(p.ops + "/readyz")
		switch {
		case code == http.StatusOK:
			return nil
		case !p.Running():
			return harness.Permanent(fmt.Errorf("the plugin exited"))
		}
		return fmt.Errorf("readyz %d %s %v", code, body, err)
	})
	if err != nil {
		t.Fatalf("plugin %s not ready: %v; see %s", p.Name, err, p.Log)
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
	err := harness.Eventually(context.Background(), 100*time.Millisecond, 5*time.Second, func(context.Context) error {
		v, err := harness.Metric(p.ops+"/metrics", name, labels)
		if err == nil && v != want {
			err = fmt.Errorf("%v, want %v", v, want)
		}
		return err
	})
	if err != nil {
		t.Fatalf("%s%v: %v; see %s", name, labels, err, p.Log)
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
