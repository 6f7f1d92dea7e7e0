package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// verbs calls the extender's filter, prioritize and bind as kube-scheduler does with
// nodeCacheCapable: true (extender/v1 JSON: Go field names, NodeNames only).
type verbs struct {
	http *http.Client
	base string // scheme://host:port/prefix
}

type filterResult struct {
	NodeNames                  *[]string
	FailedNodes                map[string]string
	FailedAndUnresolvableNodes map[string]string
	Error                      string
}

type hostPriority struct {
	Host  string
	Score int64
}

type bindResult struct{ Error string }

// newVerbs builds the client; with ca set it speaks HTTPS trusting ca, and with cert and key it
// presents that client certificate (the extender's --tls-cert/--client-ca).
func newVerbs(base, ca, cert, key string) (*verbs, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("--extender-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--extender-ca %s holds no PEM certificate", ca)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
		if cert != "" {
			pair, err := tls.LoadX509KeyPair(cert, key)
			if err != nil {
				return nil, fmt.Errorf("--client-cert/--client-key: %w", err)
			}
			tr.TLSClientConfig.Certificates = []tls.Certificate{pair}
		}
	}
	return &verbs{http: &http.Client{Transport: tr, Timeout: 10 * time.Second}, base: base}, nil
}

func (v *verbs) filter(ctx context.Context, pod *corev1.Pod, nodes []string) (*filterResult, error) {
	var out filterResult
	err := v.post(ctx, "/filter", map[string]any{"Pod": pod, "Nodes": nil, "NodeNames": nodes}, &out)
	return &out, err
}

func (v *verbs) prioritize(ctx context.Context, pod *corev1.Pod, nodes []string) ([]hostPriority, error) {
	var out []hostPriority
	err := v.post(ctx, "/prioritize", map[string]any{"Pod": pod, "Nodes": nil, "NodeNames": nodes}, &out)
	return out, err
}

func (v *verbs) bind(ctx context.Context, pod *corev1.Pod, node string) error {
	var out bindResult
	args := map[string]any{"PodName": pod.Name, "PodNamespace": pod.Namespace, "PodUID": string(pod.UID), "Node": node}
	if err := v.post(ctx, "/bind", args, &out); err != nil {
		return err
	}
	if out.Error != "" {
		return fmt.Errorf("bind %s/%s to %s: %s", pod.Namespace, pod.Name, node, out.Error)
	}
	return nil
}

func (v *verbs) post(ctx context.Context, path string, body, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.base+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := v.http.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("POST %s: reading the answer: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: HTTP %d: %s", path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("POST %s: answer is not the extender JSON: %v (%s)", path, err, b)
	}
	return nil
}

// best is the highest-scored host (the first of equals, as the list came).
func best(scores []hostPriority, feasible []string) string {
	if len(scores) == 0 {
		return feasible[0]
	}
	top := scores[0]
	for _, s := range scores[1:] {
		if s.Score > top.Score {
			top = s
		}
	}
	return top.Host
}
