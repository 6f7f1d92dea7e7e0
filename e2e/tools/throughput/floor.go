package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"tandem.dev/e2e/internal/harness"
)

// floorExtender is run f's extender: the least an extender wired like Tandem's can do. It answers on
// the same listener kind (the shipped mutual TLS with HTTP/2, or plain HTTP with -plain-http): filter
// passes every node it is given, prioritize scores each 0, preempt keeps kube-scheduler's victims,
// bind posts the Binding with one annotation of a plan's size. What run f loses against run a is the
// extender protocol's own cost on this machine, which no extender avoids; run b against run f is
// what Tandem's decisions add to it.
type floorExtender struct {
	url  string
	srv  *http.Server
	kube kubernetes.Interface
}

// floorAnnotation stands for tandem.dev/plan under a key Tandem's extender (running beside, between
// runs b) does not read: the pod update each Binding makes carries as many bytes as with a plan.
const floorAnnotation = "throughput.tandem.dev/floor-plan"

// floorPlan is as long as a 1+2 plan (tandem-api's golden plan.json), the node's name put in.
const floorPlan = `{"node":"n","gpus":["GPU-1"],"hcas":["mlx5_0","mlx5_0"],"locality":"PIX","policy":"switch/required","plannedAt":"2026-11-22T03:00:00Z"}`

// floorArgs is the part of ExtenderArgs the floor reads (nodeCacheCapable: names only).
type floorArgs struct {
	NodeNames *[]string
}

func newFloorExtender(kube kubernetes.Interface, tlsFiles map[string]string, prefix string) (*floorExtender, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &floorExtender{kube: kube}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+prefix+"/filter", f.filter)
	mux.HandleFunc("POST "+prefix+"/prioritize", f.prioritize)
	mux.HandleFunc("POST "+prefix+"/bind", f.bind)
	mux.HandleFunc("POST "+prefix+"/preempt", f.preempt)
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if len(tlsFiles) == 0 {
		f.url = "http://" + ln.Addr().String()
		go serveFloor(func() error { return f.srv.Serve(ln) })
		return f, nil
	}
	cfg, err := floorTLS(tlsFiles)
	if err != nil {
		ln.Close()
		return nil, err
	}
	f.srv.TLSConfig = cfg
	f.url = "https://" + ln.Addr().String()
	// offers HTTP/2 through ALPN, as the extender's listener does
	go serveFloor(func() error { return f.srv.ServeTLS(ln, "", "") })
	return f, nil
}

func serveFloor(serve func() error) {
	if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logf("floor extender stopped serving: %v", err)
	}
}

// floorTLS is the extender's listener TLS from its --tls-cert, --tls-key and --client-ca files.
func floorTLS(files map[string]string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(files["--tls-cert"], files["--tls-key"])
	if err != nil {
		return nil, fmt.Errorf("floor extender: its certificate: %w", err)
	}
	pem, err := os.ReadFile(files["--client-ca"])
	if err != nil {
		return nil, fmt.Errorf("floor extender: the client CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("floor extender: no certificate in %s", files["--client-ca"])
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}, nil
}

func (f *floorExtender) close() { _ = f.srv.Close() }

func (f *floorExtender) filter(w http.ResponseWriter, r *http.Request) {
	if names, ok := nodeNames(w, r); ok {
		reply(w, extenderv1.ExtenderFilterResult{NodeNames: &names, FailedNodes: extenderv1.FailedNodesMap{}})
	}
}

func (f *floorExtender) prioritize(w http.ResponseWriter, r *http.Request) {
	names, ok := nodeNames(w, r)
	if !ok {
		return
	}
	scores := make(extenderv1.HostPriorityList, len(names))
	for i, n := range names {
		scores[i] = extenderv1.HostPriority{Host: n}
	}
	reply(w, scores)
}

// nodeNames reads a filter or prioritize body's NodeNames; a body without them gets 400.
func nodeNames(w http.ResponseWriter, r *http.Request) ([]string, bool) {
	var args floorArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil || args.NodeNames == nil {
		http.Error(w, "not an ExtenderArgs with NodeNames", http.StatusBadRequest)
		return nil, false
	}
	return *args.NodeNames, true
}

func (f *floorExtender) bind(w http.ResponseWriter, r *http.Request) {
	var args extenderv1.ExtenderBindingArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
		http.Error(w, "not an ExtenderBindingArgs", http.StatusBadRequest)
		return
	}
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: args.PodName, Namespace: args.PodNamespace, UID: types.UID(args.PodUID),
			Annotations: map[string]string{floorAnnotation: strings.Replace(floorPlan, `"n"`, `"`+args.Node+`"`, 1)}},
		Target: corev1.ObjectReference{Kind: "Node", Name: args.Node},
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	res := extenderv1.ExtenderBindingResult{}
	if err := f.kube.CoreV1().Pods(args.PodNamespace).Bind(ctx, binding, metav1.CreateOptions{}); err != nil {
		res.Error = err.Error()
	}
	reply(w, res)
}

// preempt keeps every node and victim kube-scheduler proposes (node-cache mode: meta victims).
func (f *floorExtender) preempt(w http.ResponseWriter, r *http.Request) {
	var args extenderv1.ExtenderPreemptionArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
		http.Error(w, "not an ExtenderPreemptionArgs", http.StatusBadRequest)
		return
	}
	reply(w, extenderv1.ExtenderPreemptionResult{NodeNameToMetaVictims: args.NodeNameToMetaVictims})
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// floorTLSFiles are the local copies of the extender Deployment's listener files (none with -plain-http).
func (b *bench) floorTLSFiles() (map[string]string, error) {
	if b.o.plain {
		return nil, nil
	}
	c, err := harness.DeploymentContainer(b.docs, "tandem-scheduler-extender")
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, a := range c.Args {
		if flag, path, ok := strings.Cut(a, "="); ok && tlsArg(a) {
			files[flag] = b.paths.Rewrite(path)
		}
	}
	for _, flag := range []string{"--tls-cert", "--tls-key", "--client-ca"} {
		if files[flag] == "" {
			return nil, fmt.Errorf("floor extender: the extender Deployment has no %s", flag)
		}
	}
	return files, nil
}
