package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Clients talk to the API server as the cluster admin (for set-up and for reading what it holds).
type Clients struct {
	Config  *rest.Config
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
}

// Connect builds admin clients from the admin kubeconfig.
func (e *Env) Connect() (*Clients, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", e.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", e.Kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	k, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	d, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Clients{Config: cfg, Kube: k, Dynamic: d}, nil
}

// NodeSpec describes a fake node: no kubelet, only a Node object that says it is Ready and has devices.
type NodeSpec struct {
	Name   string
	GPUs   int
	HCAs   int
	Labels map[string]string
}

// CreateNode creates a Ready Node with nvidia.com/gpu and rdma/hca in capacity and allocatable.
func (c *Clients) CreateNode(ctx context.Context, s NodeSpec) error {
	labels := map[string]string{"kubernetes.io/hostname": s.Name, "tandem.dev/e2e": "true"}
	for k, v := range s.Labels {
		labels[k] = v
	}
	res := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("64"),
		corev1.ResourceMemory: resource.MustParse("512Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
		"nvidia.com/gpu":      *resource.NewQuantity(int64(s.GPUs), resource.DecimalSI),
		"rdma/hca":            *resource.NewQuantity(int64(s.HCAs), resource.DecimalSI),
	}
	now := metav1.Now()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Labels: labels},
		Status: corev1.NodeStatus{
			Capacity:    res,
			Allocatable: res,
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "fake node of the tandem end-to-end harness", LastHeartbeatTime: now, LastTransitionTime: now,
			}},
			NodeInfo: corev1.NodeSystemInfo{Architecture: "amd64", OperatingSystem: "linux", KubeletVersion: "v0.0.0-e2e"},
		},
	}
	created, err := c.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create node %s: %w", s.Name, err)
	}
	// The NodeRestriction-free API server adds node.kubernetes.io/not-ready on create
	// (TaintNodesByCondition); the node lifecycle controller would lift it for a Ready node. There is
	// no controller manager here, so the harness lifts it.
	created.Spec.Taints = nil
	if created, err = c.Kube.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("untaint node %s: %w", s.Name, err)
	}
	created.Status = node.Status
	if _, err := c.Kube.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("set status of node %s: %w", s.Name, err)
	}
	return nil
}

// EnsureNamespace creates a namespace with a default ServiceAccount (there is no controller manager).
func (c *Clients) EnsureNamespace(ctx context.Context, name string) error {
	_, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create namespace %s: %w", name, err)
	}
	return c.EnsureServiceAccount(ctx, name, "default")
}

// EnsureServiceAccount creates namespace/name if it is missing.
func (c *Clients) EnsureServiceAccount(ctx context.Context, ns, name string) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	_, err := c.Kube.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create serviceaccount %s/%s: %w", ns, name, err)
	}
	return nil
}

// ServiceAccountKubeconfig asks the API server for a token of ns/name (TokenRequest) and writes a
// kubeconfig that authenticates with it, so a component runs with exactly that ServiceAccount's rights.
func (c *Clients) ServiceAccountKubeconfig(ctx context.Context, e *Env, ns, name string) (string, error) {
	exp := int64(6 * time.Hour / time.Second)
	tr, err := c.Kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for serviceaccount %s/%s: %w", ns, name, err)
	}
	path := filepath.Join(e.Dir, fmt.Sprintf("sa-%s-%s.kubeconfig", ns, name))
	body := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: %q, certificate-authority: %q}
users:
- name: %s
  user: {token: %q}
contexts:
- name: e2e
  context: {cluster: e2e, user: %s, namespace: %s}
current-context: e2e
`, e.APIServer, e.CA, name, tr.Status.Token, name, ns)
	return path, os.WriteFile(path, []byte(body), 0o600)
}
