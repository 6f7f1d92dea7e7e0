//go:build !k8s134

// Package dra plays the kubelet's Dynamic Resource Allocation side with the kubelet's own code: the
// DRA manager of k8s.io/kubernetes/pkg/kubelet/cm/dra (its registration handler, the driver's gRPC
// client, the claim cache and its checkpoint, the slice wiping) fed by the kubelet's plugin manager
// (k8s.io/kubernetes/pkg/kubelet/pluginmanager: the plugin watcher on the registration directory and
// the reconciler that calls GetInfo and NotifyRegistrationStatus), wired as pkg/kubelet wires them.
//
// Everything lives in the kubelet's fixed root /var/lib/kubelet: run this inside a private mount
// namespace with a tmpfs there (e2e/run does).
package dra

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	pluginwatcherapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
	kubeletdra "k8s.io/kubernetes/pkg/kubelet/cm/dra"
	draplugin "k8s.io/kubernetes/pkg/kubelet/cm/dra/plugin"
	"k8s.io/kubernetes/pkg/kubelet/pluginmanager"

	"tandem.dev/e2e/internal/harness"
)

const (
	// RootDir is the kubelet's root directory, where the DRA manager keeps its checkpoint.
	RootDir = "/var/lib/kubelet"
	// RegistryDir is where plugins put their registration sockets (the kubelet's plugins_registry).
	RegistryDir = RootDir + "/plugins_registry"
	// PluginsDir is where plugins put their service sockets by convention (plugins/<driver>).
	PluginsDir = RootDir + "/plugins"
)

// stateFiles are the DRA manager's checkpoints in RootDir (cm/dra's draManagerStateFileName and its
// health cache).
var stateFiles = []string{"dra_manager_state", "dra_health_state"}

// Kubelet is the DRA half of a kubelet for one node.
type Kubelet struct {
	client kubernetes.Interface
	node   string
	logger klog.Logger

	mu      sync.Mutex
	active  map[types.UID]*v1.Pod
	mgr     *kubeletdra.Manager
	cancel  context.CancelFunc
	stopped chan struct{}
}

type allSourcesReady struct{}

func (allSourcesReady) AddSource(string) {}
func (allSourcesReady) AllReady() bool   { return true }

// Start starts the DRA manager and the plugin manager of a new node (no checkpoint of an earlier
// one). client is the kubelet's connection to the API server.
func Start(client kubernetes.Interface, node string) (*Kubelet, error) {
	k := &Kubelet{client: client, node: node, logger: klog.Background(), active: map[types.UID]*v1.Pod{}}
	for _, f := range stateFiles {
		if err := os.RemoveAll(filepath.Join(RootDir, f)); err != nil {
			return nil, err
		}
	}
	if err := k.start(); err != nil {
		return nil, err
	}
	return k, nil
}

// start is the kubelet's order: the container manager starts the DRA manager, then the plugin
// manager gets its handlers and runs.
func (k *Kubelet) start() error {
	for _, d := range []string{RegistryDir, PluginsDir} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return err
		}
	}
	mgr, err := kubeletdra.NewManager(k.logger, k.client, RootDir)
	if err != nil {
		return fmt.Errorf("the kubelet's DRA manager: %w", err)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), k.logger))
	getNode := func(ctx context.Context) (*v1.Node, error) {
		return k.client.CoreV1().Nodes().Get(ctx, k.node, metav1.GetOptions{})
	}
	if err := mgr.Start(ctx, k.activePods, getNode, allSourcesReady{}); err != nil {
		cancel()
		return err
	}
	pm := pluginmanager.NewPluginManager(RegistryDir, &record.FakeRecorder{})
	pm.AddHandler(pluginwatcherapi.DRAPlugin, mgr.GetWatcherHandler())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		pm.Run(ctx, allSourcesReady{}, ctx.Done())
	}()
	k.mu.Lock()
	k.mgr, k.cancel, k.stopped = mgr, cancel, stopped
	k.mu.Unlock()
	return nil
}

// Stop stops the plugin manager and the DRA manager (their connections to the drivers close).
func (k *Kubelet) Stop() {
	k.mu.Lock()
	mgr, cancel, stopped := k.mgr, k.cancel, k.stopped
	k.mu.Unlock()
	cancel()
	<-stopped
	if h, ok := mgr.GetWatcherHandler().(*draplugin.DRAPluginManager); ok {
		h.Stop()
	}
}

// Restart stops both managers and starts new ones on the same directory, as a kubelet restart does:
// the new DRA manager reads its checkpoint back and deletes the node's ResourceSlices, the new plugin
// watcher finds the registration sockets there and registers the drivers again.
func (k *Kubelet) Restart() error {
	k.Stop()
	return k.start()
}

func (k *Kubelet) manager() *kubeletdra.Manager {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.mgr
}

func (k *Kubelet) activePods() []*v1.Pod {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]*v1.Pod, 0, len(k.active))
	for _, p := range k.active {
		out = append(out, p)
	}
	return out
}

// Registered says whether driver is registered and usable (the DRA manager would call it now).
func (k *Kubelet) Registered(driver string) error {
	h, ok := k.manager().GetWatcherHandler().(*draplugin.DRAPluginManager)
	if !ok {
		return errors.New("the DRA manager's registration handler is not a DRAPluginManager")
	}
	_, err := h.GetPlugin(driver)
	return err
}

// WaitRegistered waits until driver is registered with the DRA manager.
func (k *Kubelet) WaitRegistered(driver string, timeout time.Duration) error {
	err := harness.Eventually(context.Background(), 100*time.Millisecond, timeout, func(context.Context) error {
		return k.Registered(driver)
	})
	if err != nil {
		return fmt.Errorf("DRA driver %s not registered with the kubelet: %w", driver, err)
	}
	return nil
}

// Prepare admits the pod as the kubelet does before it starts its containers: the pod is read again
// from the API server (its claims' names are in its status), becomes active, and the DRA manager
// prepares its claims through their drivers. It returns each container's CDI device ids, as the
// kubelet hands them to the runtime.
func (k *Kubelet) Prepare(ctx context.Context, ns, name string) (*v1.Pod, map[string][]string, error) {
	pod, err := k.client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, err
	}
	k.mu.Lock()
	k.active[pod.UID] = pod
	k.mu.Unlock()
	mgr := k.manager()
	if err := mgr.PrepareResources(ctx, pod); err != nil {
		return pod, nil, fmt.Errorf("pod %s/%s: %w", ns, name, err)
	}
	ids := map[string][]string{}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		info, err := mgr.GetResources(pod, c)
		if err != nil {
			return pod, nil, fmt.Errorf("pod %s/%s container %s: %w", ns, name, c.Name, err)
		}
		for _, d := range info.CDIDevices {
			ids[c.Name] = append(ids[c.Name], d.Name)
		}
		sort.Strings(ids[c.Name])
	}
	return pod, ids, nil
}

// Unprepare is the kubelet after the pod's containers ended: the pod is no longer active and the DRA
// manager unprepares its claims.
func (k *Kubelet) Unprepare(ctx context.Context, pod *v1.Pod) error {
	k.mu.Lock()
	delete(k.active, pod.UID)
	k.mu.Unlock()
	if err := k.manager().UnprepareResources(ctx, pod); err != nil {
		return fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}
