//go:build e2e

package scenarios

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"tandem.dev/e2e/internal/harness"
)

// kube-apiserver is stopped while pods are being scheduled and started again on the same port and
// etcd. While it is down the extender answers filter from its informers and its /readyz says it is
// degraded (still 200: a not-ready extender would fail every pod asking for GPUs or HCAs); once it is
// back, scheduling resumes and two XE8640 hold exactly their six aligned 1+1 pods, nothing planned
// twice.
func TestAPIServerRestartedMidRun(t *testing.T) {
	const ns = "apirestart"
	cl.use(t, ns)
	nodes := cl.group(t, ns, xe8640, xe8640)
	var specs []podSpec
	for i := 0; i < 10; i++ {
		specs = append(specs, podSpec{name: fmt.Sprintf("pair-%02d", i), gpus: 1, hcas: 1})
	}
	cl.submit(t, ns, specs[:3]...)
	cl.waitBoundCount(t, ns, 3, 90*time.Second)
	replica := cl.service.Ready()
	if replica == "" {
		t.Fatal("no extender replica is ready")
	}
	ext := inspectionURL(replica)

	t0 := time.Now()
	killed, err := cl.env.StopAPIServer(3 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	stopped := time.Since(t0)
	// Degraded, and still ready, once its informers notice the lost watches.
	var code int
	var ready map[string]any
	eventually(t, 8*time.Second, "the extender's /readyz says degraded once the API server stopped", func(context.Context) error {
		var body string
		code, body, _ = harness.Get(ext + "/readyz")
		ready = map[string]any{}
		_ = json.Unmarshal([]byte(body), &ready)
		if ready["degraded"] != true {
			return fmt.Errorf("/readyz answers %d %s", code, body)
		}
		return nil
	})
	seen := time.Since(t0)
	if code != http.StatusOK {
		t.Errorf("degraded extender answered /readyz %d %v, want 200 (ready, degraded)", code, ready)
	}
	// Filter answers from the informers: the 3 bound pods leave 3 aligned pairs free on the two nodes
	// (best fit may have filled one of them), so at least one node passes, and every node is judged.
	passed, failed := filterDirect(t, replica, ns, nodes)
	if len(passed) == 0 || len(passed)+len(failed) != len(nodes) {
		t.Errorf("with the API server down, filter passed %v and failed %v, want at least one of %v passed and each judged", passed, failed, nodes)
	}
	t.Logf("API server stopped in %s (SIGKILL after 3 s of SIGTERM: %v); the extender said degraded (/readyz %d, %v) %s after "+
		"the SIGTERM, and filter answered from its informers",
		stopped.Round(time.Millisecond), killed, code, ready["reason"], seen.Round(time.Millisecond))

	t1 := time.Now()
	if err := cl.env.StartAPIServer(cl.c, 90*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("API server down for %s in all; ready again %s after it was let start", time.Since(t0).Round(time.Millisecond),
		time.Since(t1).Round(time.Millisecond))
	// kube-scheduler exits when it cannot renew its Lease in time; its Deployment would start it again.
	if !cl.scheduler.Running() {
		t.Logf("kube-scheduler exited while the API server was down (lost its Lease); starting it again, as its Deployment would")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := cl.startScheduler(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := cl.waitServiceReady(ctx); err != nil {
		t.Fatal(err)
	}
	back := inspectionURL(cl.service.Ready())
	eventually(t, 30*time.Second, "the extender no longer degraded once the API server is back", func(context.Context) error {
		_, body, _ := harness.Get(back + "/readyz")
		ready = map[string]any{}
		_ = json.Unmarshal([]byte(body), &ready)
		if ready["degraded"] != false {
			return fmt.Errorf("/readyz says %s", body)
		}
		return nil
	})
	cl.submit(t, ns, specs[3:]...)
	// Positive signal first: kube-scheduler has bound or found no node for every pod; then the count.
	cl.waitBoundCount(t, ns, 6, 3*time.Minute)
	cl.waitDecided(t, ns, 3*time.Minute)
	if bound := cl.assertNoDoubleBooking(t, ns); bound != 6 {
		t.Fatalf("%d pods bound after the API server restart; 2 XE8640 hold exactly 6 aligned 1+1 pods", bound)
	}
}

// inspectionURL is the base URL of a replica's inspection listener (/readyz, /metrics).
func inspectionURL(replica string) string {
	return fmt.Sprintf("http://127.0.0.1:%d", cl.inspPorts[replica])
}

// schedulerClient calls the verbs as kube-scheduler does: mutual TLS with its client certificate.
func schedulerClient(t *testing.T) *http.Client {
	t.Helper()
	dir := cl.paths["/etc/tandem-scheduler-tls"]
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if err != nil {
		t.Fatalf("kube-scheduler's client certificate: %v", err)
	}
	return verbsClient(t, []tls.Certificate{cert})
}

// verbsClient checks the extender's certificate against its CA and the Service's name, as
// kube-scheduler's tlsConfig does, and presents certs (none, kube-scheduler's, another CA's). Its
// transport is made as kube-scheduler makes its extender transport once TLS is set
// (pkg/scheduler/extender.go, makeTransport: utilnet.SetTransportDefaults, which offers HTTP/2).
func verbsClient(t *testing.T, certs []tls.Certificate) *http.Client {
	t.Helper()
	roots := x509.NewCertPool()
	ca, err := os.ReadFile(filepath.Join(cl.paths["/etc/tandem/tls"], "ca.crt"))
	if err != nil || !roots.AppendCertsFromPEM(ca) {
		t.Fatalf("the extender's CA (its Secret's ca.crt): %v", err)
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: utilnet.SetTransportDefaults(&http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: roots, ServerName: "tandem-scheduler-extender.tandem-system.svc", Certificates: certs,
	}})}
}

// filterDirect POSTs kube-scheduler's filter call for a 1 GPU + 1 HCA pod straight to one extender
// replica (not through the Service), as kube-scheduler would (mutual TLS), and returns the nodes
// that passed and those that failed.
func filterDirect(t *testing.T, replica, ns string, nodes []string) ([]string, map[string]string) {
	t.Helper()
	pod := cl.pod(ns, podSpec{name: "filter-probe", gpus: 1, hcas: 1})
	pod.UID = types.UID("filter-probe-uid")
	args, err := json.Marshal(map[string]any{"Pod": pod, "Nodes": nil, "NodeNames": nodes})
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("https://127.0.0.1:%d/scheduler/filter", cl.extPorts[replica])
	resp, err := schedulerClient(t).Post(url, "application/json", bytes.NewReader(args))
	if err != nil {
		t.Fatalf("filter with the API server down: %v", err)
	}
	defer resp.Body.Close()
	var result struct {
		NodeNames                  []string
		FailedNodes                map[string]string
		FailedAndUnresolvableNodes map[string]string
		Error                      string
	}
	if err := json.NewDecoder(resp.Body).Decode(&result); err != nil || resp.StatusCode != http.StatusOK || result.Error != "" {
		t.Fatalf("filter with the API server down: %s, %v, error %q", resp.Status, err, result.Error)
	}
	failed := map[string]string{}
	for n, r := range result.FailedNodes {
		failed[n] = r
	}
	for n, r := range result.FailedAndUnresolvableNodes {
		failed[n] = r
	}
	return result.NodeNames, failed
}
