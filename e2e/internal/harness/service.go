package harness

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// Service stands in for a Kubernetes Service with readiness probes: it forwards every request to the
// first backend whose readiness URL answers 200 (kube-proxy routes only to ready endpoints), and
// answers 503 when none is ready.
type Service struct {
	URL      string
	srv      *http.Server
	mu       sync.Mutex
	backends []string
	ready    string
	stop     chan struct{}
}

// NewService listens on a free loopback port; readyPath is probed on each backend every 200 ms.
func NewService(readyPath string) (*Service, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Service{URL: "http://" + ln.Addr().String(), stop: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.forward)}
	go s.srv.Serve(ln)
	go s.probe(readyPath)
	return s, nil
}

// SetBackends replaces the endpoint list (base URLs such as http://127.0.0.1:PORT).
func (s *Service) SetBackends(b ...string) {
	s.mu.Lock()
	s.backends = append([]string(nil), b...)
	s.mu.Unlock()
}

// Ready is the backend requests currently go to, or "" when none is ready.
func (s *Service) Ready() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ready
}

// Close stops the listener and the prober.
func (s *Service) Close() {
	close(s.stop)
	_ = s.srv.Close()
}

func (s *Service) probe(path string) {
	client := &http.Client{Timeout: time.Second}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		s.mu.Lock()
		backends := append([]string(nil), s.backends...)
		s.mu.Unlock()
		ready := ""
		for _, b := range backends {
			resp, err := client.Get(b + path)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					ready = b
					break
				}
			}
		}
		s.mu.Lock()
		s.ready = ready
		s.mu.Unlock()
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

func (s *Service) forward(w http.ResponseWriter, r *http.Request) {
	b := s.Ready()
	if b == "" {
		http.Error(w, "no ready endpoint behind the service", http.StatusServiceUnavailable)
		return
	}
	u, _ := url.Parse(b)
	httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
