package harness

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Backend is one extender replica behind the Service: its verbs port, and the inspection port's
// readiness URL that the Service probes (the kubelet's readinessProbe in a cluster).
type Backend struct {
	Name     string // replica name
	Addr     string // host:port of the verbs
	ReadyURL string // e.g. http://127.0.0.1:PORT/readyz
}

// Service stands in for a Kubernetes Service with readiness probes: like kube-proxy it forwards
// TCP connections (TLS passes through untouched) to the first backend whose readiness URL answers
// 200, and closes connections when none is ready.
type Service struct {
	URL      string // http://127.0.0.1:PORT (the scheme of the verbs is the caller's business)
	Addr     string // 127.0.0.1:PORT
	ln       net.Listener
	mu       sync.Mutex
	backends []Backend
	ready    *Backend
	stop     chan struct{}
}

// NewService listens on a free loopback port; each backend's ReadyURL is probed every 200 ms.
func NewService() (*Service, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Service{URL: "http://" + ln.Addr().String(), Addr: ln.Addr().String(), ln: ln, stop: make(chan struct{})}
	go s.serve()
	go s.probe()
	return s, nil
}

// SetBackends replaces the endpoint list.
func (s *Service) SetBackends(b ...Backend) {
	s.mu.Lock()
	s.backends = append([]Backend(nil), b...)
	s.mu.Unlock()
}

// Ready is the name of the backend connections currently go to, or "" when none is ready.
func (s *Service) Ready() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready == nil {
		return ""
	}
	return s.ready.Name
}

// Close stops the listener and the prober.
func (s *Service) Close() {
	close(s.stop)
	_ = s.ln.Close()
}

func (s *Service) probe() {
	client := &http.Client{Timeout: time.Second}
	// The probe's period, as a readinessProbe's periodSeconds: a pace, not a wait for anything.
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		s.mu.Lock()
		backends := append([]Backend(nil), s.backends...)
		s.mu.Unlock()
		var ready *Backend
		for i, b := range backends {
			resp, err := client.Get(b.ReadyURL)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					ready = &backends[i]
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

func (s *Service) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.forward(c)
	}
}

func (s *Service) forward(c net.Conn) {
	defer c.Close()
	s.mu.Lock()
	b := s.ready
	s.mu.Unlock()
	if b == nil {
		return
	}
	up, err := net.DialTimeout("tcp", b.Addr, 5*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	<-done
	<-done
}

// FreePort returns a loopback TCP port that was free a moment ago, below the kernel's ephemeral
// range (as e2e/control-plane picks its ports): a port inside it can be taken by any outgoing
// connection between this check and the server's bind, and the server then fails to start.
func FreePort() int {
	low := ephemeralLow()
	for i := 0; i < 1000; i++ {
		p := 10000 + rand.IntN(low-10000)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err == nil {
			ln.Close()
			return p
		}
	}
	return 0
}

// ephemeralLow is the first port of the kernel's ephemeral range (32768 when it cannot be read).
func ephemeralLow() int {
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	fields := strings.Fields(string(raw))
	if len(fields) == 0 {
		return 32768
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil || low <= 12000 {
		return 32768
	}
	return low
}
