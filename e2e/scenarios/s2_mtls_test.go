//go:build e2e

package scenarios

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The verbs are a privilege: kube-scheduler, wired exactly as shipped (https, tlsConfig with its
// client certificate, the CA and serverName), schedules through the extender, while a caller
// without kube-scheduler's certificate is refused by the extender itself; the inspection port
// serves its page and probes to anyone and no verb.
func TestVerbsAnswerOnlyTheSchedulersCertificate(t *testing.T) {
	cl.use(t, "mtls")
	cl.group(t, "mtls", xe8640)
	cl.submit(t, "mtls", podSpec{name: "through-mtls", gpus: 1, hcas: 1})
	if planOf(t, cl.waitBound(t, "mtls", "through-mtls", 90*time.Second)) == nil {
		t.Fatal("pod bound without a plan: kube-scheduler did not bind through the extender")
	}

	t.Run("DocumentedCopyOfTheClientCertificate", func(t *testing.T) {
		// install.md's command for option B's hosts yields the certificate kube-scheduler presents
		out := cl.docCommand(t, "install.md",
			`kubectl -n tandem-system get secret tandem-scheduler-client-tls -o jsonpath='{.data.tls\.crt}'`,
			"-n", "tandem-system", "get", "secret", "tandem-scheduler-client-tls", "-o", `jsonpath={.data.tls\.crt}`)
		got, err := base64.StdEncoding.DecodeString(strings.TrimSpace(out))
		if err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		used, err := os.ReadFile(filepath.Join(cl.paths["/etc/tandem-scheduler-tls"], "tls.crt"))
		if err != nil || string(got) != string(used) {
			t.Fatalf("the documented copy differs from the client certificate kube-scheduler uses (%v)", err)
		}
	})

	bind := func(certs []tls.Certificate) error {
		c := verbsClient(t, certs)
		body := `{"PodName":"through-mtls","PodNamespace":"mtls","PodUID":"x","Node":"mtls-0"}`
		resp, err := c.Post("https://"+cl.service.Addr+"/scheduler/bind", "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("answered %d %s", resp.StatusCode, b)
	}
	t.Run("OneHTTP2ConnectionLikeKubeScheduler", func(t *testing.T) {
		// kube-scheduler's transport offers h2 once TLS is set; over HTTP/1.1 it would open a TLS
		// connection for every bind in flight beyond the two it keeps idle
		c := schedulerClient(t)
		resp, err := c.Post("https://"+cl.service.Addr+"/scheduler/bind", "application/json",
			strings.NewReader(`{"PodName":"through-mtls","PodNamespace":"mtls","PodUID":"x","Node":"mtls-0"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.ProtoMajor != 2 {
			t.Fatalf("the verbs answered kube-scheduler's transport over %s, want HTTP/2 (ALPN h2)", resp.Proto)
		}
	})
	t.Run("NoClientCertificate", func(t *testing.T) {
		err := bind(nil)
		if err == nil || strings.HasPrefix(err.Error(), "answered") || strings.Contains(err.Error(), "x509") {
			t.Fatalf("bind without a client certificate: %v; want the extender to refuse the handshake (the server certificate itself verified)", err)
		}
		t.Logf("refused: %v", err)
	})
	t.Run("CertificateOfAnotherCA", func(t *testing.T) {
		err := bind([]tls.Certificate{selfSignedClient(t)})
		if err == nil || strings.HasPrefix(err.Error(), "answered") || strings.Contains(err.Error(), "x509") {
			t.Fatalf("bind with a certificate of another CA: %v; want the extender to refuse it", err)
		}
		t.Logf("refused: %v", err)
	})
	t.Run("InspectionPortWithoutCertificate", func(t *testing.T) {
		cl.mu.Lock()
		port := cl.inspPorts[cl.service.Ready()]
		cl.mu.Unlock()
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		for _, path := range []string{"/healthz", "/readyz", "/ui/", "/topology/nodes"} {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s on the inspection port: %d", path, resp.StatusCode)
			}
		}
		resp, err := http.Post(base+"/scheduler/bind", "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST /scheduler/bind on the inspection port: %d, want 404", resp.StatusCode)
		}
	})
}

// selfSignedClient is a client certificate (clientAuth) of a CA the extender does not trust.
func selfSignedClient(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tandem-kube-scheduler"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
