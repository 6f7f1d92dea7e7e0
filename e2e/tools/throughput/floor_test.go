package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// The floor extender answers kube-scheduler's own encoding of each verb (extender/v1 types).
func TestFloorExtenderAnswersEachVerb(t *testing.T) {
	kube := fake.NewSimpleClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u"}})
	f, err := newFloorExtender(kube, nil, "/scheduler")
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	names := []string{"node-a", "node-b", "node-c"}
	args := extenderv1.ExtenderArgs{Pod: &corev1.Pod{}, NodeNames: &names}

	var filtered extenderv1.ExtenderFilterResult
	post(t, f.url+"/scheduler/filter", args, &filtered)
	if filtered.NodeNames == nil || len(*filtered.NodeNames) != 3 || len(filtered.FailedNodes) != 0 || filtered.Error != "" {
		t.Fatalf("filter must pass every node: %+v", filtered)
	}
	var scores extenderv1.HostPriorityList
	post(t, f.url+"/scheduler/prioritize", args, &scores)
	if len(scores) != 3 || scores[2].Host != "node-c" || scores[2].Score != 0 {
		t.Fatalf("prioritize must score every node 0: %+v", scores)
	}
	victims := map[string]*extenderv1.MetaVictims{"node-a": {Pods: []*extenderv1.MetaPod{{UID: "victim"}}}}
	var kept extenderv1.ExtenderPreemptionResult
	post(t, f.url+"/scheduler/preempt", extenderv1.ExtenderPreemptionArgs{Pod: &corev1.Pod{}, NodeNameToMetaVictims: victims}, &kept)
	if len(kept.NodeNameToMetaVictims) != 1 || kept.NodeNameToMetaVictims["node-a"].Pods[0].UID != "victim" {
		t.Fatalf("preempt must keep kube-scheduler's victims: %+v", kept)
	}
	var bound extenderv1.ExtenderBindingResult
	post(t, f.url+"/scheduler/bind", extenderv1.ExtenderBindingArgs{PodName: "p", PodNamespace: "ns", PodUID: "u", Node: "node-b"}, &bound)
	if bound.Error != "" {
		t.Fatalf("bind: %s", bound.Error)
	}
	var binding *corev1.Binding
	for _, a := range kube.Actions() {
		if c, ok := a.(k8stesting.CreateAction); ok && a.GetSubresource() == "binding" {
			binding, _ = c.GetObject().(*corev1.Binding)
		}
	}
	if binding == nil || binding.Target.Name != "node-b" || binding.Name != "p" || binding.Annotations[floorAnnotation] == "" {
		t.Fatalf("bind must post the pod's Binding to node-b with a plan-sized annotation, got %+v", binding)
	}
}

func TestFloorExtenderRefusesABodyWithoutNodeNames(t *testing.T) {
	f, err := newFloorExtender(fake.NewSimpleClientset(), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	resp, err := http.Post(f.url+"/filter", "application/json", bytes.NewBufferString(`{"Pod":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("got %d, want 400", resp.StatusCode)
	}
}

func post(t *testing.T, url string, body, into any) {
	t.Helper()
	raw, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		t.Fatal(err)
	}
}

// Over the shipped listener kind: mutual TLS, HTTP/2 through ALPN, a client without a certificate refused.
func TestFloorExtenderServesMutualTLSOverHTTP2(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	files := map[string]string{"--client-ca": filepath.Join(dir, "ca.crt"), "--tls-cert": filepath.Join(dir, "tls.crt"), "--tls-key": filepath.Join(dir, "tls.key")}
	writePEM(t, files["--client-ca"], "CERTIFICATE", ca.der)
	serverDER, serverKey := ca.issue(t, x509.ExtKeyUsageServerAuth)
	writePEM(t, files["--tls-cert"], "CERTIFICATE", serverDER)
	writePEM(t, files["--tls-key"], "PRIVATE KEY", serverKey)
	f, err := newFloorExtender(fake.NewSimpleClientset(), files, "/scheduler")
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	clientDER, clientKey := ca.issue(t, x509.ExtKeyUsageClientAuth)
	pair, err := tls.X509KeyPair(pemOf("CERTIFICATE", clientDER), pemOf("PRIVATE KEY", clientKey))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	client := func(certs ...tls.Certificate) *http.Client {
		return &http.Client{Transport: &http.Transport{ForceAttemptHTTP2: true,
			TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: certs}}}
	}
	names := []string{"node-a"}
	raw, _ := json.Marshal(extenderv1.ExtenderArgs{Pod: &corev1.Pod{}, NodeNames: &names})
	resp, err := client(pair).Post(f.url+"/scheduler/filter", "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
		t.Fatalf("got %s over %s, want 200 over HTTP/2", resp.Status, resp.Proto)
	}
	if _, err := client().Post(f.url+"/scheduler/filter", "application/json", bytes.NewReader(raw)); err == nil {
		t.Fatal("a client without a certificate must be refused")
	}
}

type testCA struct {
	cert *x509.Certificate
	der  []byte
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T) *testCA {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "floor test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, der: der, key: key}
}

// issue signs a leaf for 127.0.0.1 with the usage given; returns its DER and its PKCS#8 key.
func (ca *testCA) issue(t *testing.T, usage x509.ExtKeyUsage) (der, key []byte) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "floor test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		KeyUsage: x509.KeyUsageDigitalSignature}
	if der, err = x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &k.PublicKey, ca.key); err != nil {
		t.Fatal(err)
	}
	if key, err = x509.MarshalPKCS8PrivateKey(k); err != nil {
		t.Fatal(err)
	}
	return der, key
}

func pemOf(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	if err := os.WriteFile(path, pemOf(kind, der), 0o600); err != nil {
		t.Fatal(err)
	}
}
