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
func (e *Env) Connect() (*Clients, error) { return ConnectAs(e.Kubeconfig) }

// ConnectAs builds clients that authenticate as the given kubeconfig says.
func ConnectAs(kubeconfig string) (*Clients, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
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
// The token is bound to no object: the API server puts no pod or node in its user extra.
func (c *Clients) ServiceAccountKubeconfig(ctx context.Context, e *Env, ns, name string) (string, error) {
	return c.tokenKubeconfig(ctx, e, ns, name, nil, fmt.Sprintf("sa-%s-%s.kubeconfig", ns, name))
}

// PodBoundKubeconfig writes a kubeconfig with a token of the pod's ServiceAccount bound to the pod
// (TokenRequest with boundObjectRef kind Pod), as the kubelet's projected token is: the API server puts
// the pod and its node (authentication.kubernetes.io/node-name) in the user extra of its requests.
func (c *Clients) PodBoundKubeconfig(ctx context.Context, e *Env, pod *corev1.Pod) (string, error) {
	ref := &authv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}
	return c.tokenKubeconfig(ctx, e, pod.Namespace, pod.Spec.ServiceAccountName, ref,
		fmt.Sprintf("pod-%s-%s.kubeconfig", pod.Namespace, pod.Name))
}

func (c *Clients) tokenKubeconfig(ctx context.Context, e *Env, ns, name string, bound *authv1.BoundObjectReference, file string) (string, error) {
	exp := int64(6 * time.Hour / time.Second)
	tr, err := c.Kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: &exp, BoundObjectRef: bound}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for serviceaccount %s/%s (bound to %v): %w", ns, name, bound, err)
	}
	path := filepath.Join(e.Dir, file)
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

// StandInPod creates what the kubelet would run a DaemonSet's pod as on node: a pod bound to the node
// (spec.nodeName), running as ns/serviceAccount. No kubelet runs it; it exists so that a token can be
// bound to it. Remove it with DeletePodNow.
func (c *Clients) StandInPod(ctx context.Context, ns, name, serviceAccount, node string) (*corev1.Pod, error) {
	no := false
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"tandem.dev/e2e-stand-in": "true"}},
		Spec: corev1.PodSpec{
			NodeName: node, ServiceAccountName: serviceAccount, AutomountServiceAccountToken: &no,
			Containers: []corev1.Container{{Name: "stand-in", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	created, err := c.Kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create stand-in pod %s/%s on node %s: %w", ns, name, node, err)
	}
	return created, nil
}

// DeletePodNow deletes a pod with grace period 0: with no kubelet, a pod bound to a node would
// otherwise wait forever for the kubelet to confirm it stopped.
func (c *Clients) DeletePodNow(ctx context.Context, ns, name string) error {
	zero := int64(0)
	err := c.Kube.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pod %s/%s: %w", ns, name, err)
	}
	return nil
}
