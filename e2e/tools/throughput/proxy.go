package main

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"sort"
	"sync"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"tandem.dev/e2e/internal/harness"
)

// timingProxy stands where the extender's Service stands and times each verb call as kube-scheduler
// sees it: from the request's arrival to the last byte of the answer. kube-scheduler (v1.37 too) has no
// metric of its own for extender calls (pkg/scheduler/metrics registers none).
type timingProxy struct {
	url   string
	srv   *http.Server
	mu    sync.Mutex
	calls map[string][]time.Duration
}

func newTimingProxy(backend string) (*timingProxy, error) {
	u, err := url.Parse(backend)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}
	p := &timingProxy{url: "http://" + ln.Addr().String(), calls: map[string][]time.Duration{}}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		rp.ServeHTTP(w, r)
		p.record(path.Base(r.URL.Path), time.Since(t0))
	})}
	go p.srv.Serve(ln)
	return p, nil
}

func (p *timingProxy) record(verb string, d time.Duration) {
	p.mu.Lock()
	p.calls[verb] = append(p.calls[verb], d)
	p.mu.Unlock()
}

// take returns the calls timed since the last take, by verb, and forgets them (none without a proxy).
func (p *timingProxy) take() map[string]latency {
	if p == nil {
		return map[string]latency{}
	}
	p.mu.Lock()
	calls := p.calls
	p.calls = map[string][]time.Duration{}
	p.mu.Unlock()
	out := map[string]latency{}
	for verb, ds := range calls {
		out[verb] = summarize(ds)
	}
	return out
}

func (p *timingProxy) close() { _ = p.srv.Close() }

// latency summarizes calls of one verb, in milliseconds.
type latency struct {
	n                   int
	mean, p50, p99, max float64
}

func summarize(ds []time.Duration) latency {
	if len(ds) == 0 {
		return latency{}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return latency{
		n:    len(ds),
		mean: ms(sum) / float64(len(ds)),
		p50:  ms(ds[len(ds)/2]),
		p99:  ms(ds[(len(ds)*99)/100]),
		max:  ms(ds[len(ds)-1]),
	}
}

// reconnect rebuilds the clients after their rest.Config changed.
func reconnect(c *harness.Clients) (*harness.Clients, error) {
	k, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	d, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	return &harness.Clients{Config: c.Config, Kube: k, Dynamic: d}, nil
}
