// Package nodeside plays the kubelet's device side with the kubelet's own code: the device manager of
// k8s.io/kubernetes/pkg/kubelet/cm/devicemanager (registration server, ListAndWatch client,
// GetPreferredAllocation and Allocate calls, checkpoint) and the PodResources v1 server of
// k8s.io/kubernetes/pkg/kubelet/apis/podresources answering from that manager's state.
//
// The device manager listens on the kubelet's fixed path /var/lib/kubelet/device-plugins/kubelet.sock:
// run this inside a private mount namespace with a tmpfs on /var/lib/kubelet (e2e/run does).
package nodeside

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"google.golang.org/grpc"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"
	"k8s.io/kubernetes/pkg/kubelet/apis/podresources"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"

	"tandem.dev/e2e/internal/harness"
)

// PluginDir is where the kubelet's device manager listens and plugins put their sockets.
const PluginDir = "/var/lib/kubelet/device-plugins"

// checkpointFile is the device manager's checkpoint in PluginDir (devicemanager's kubeletDeviceManagerCheckpoint).
const checkpointFile = "kubelet_internal_checkpoint"

// Kubelet is the device half of a kubelet: the upstream device manager plus PodResources.
type Kubelet struct {
	mu     sync.Mutex
	mgr    *upstreamManager
	active map[types.UID]*v1.Pod
	prSock string
	pr     *grpc.Server
	logger klog.Logger
}

type allSourcesReady struct{}

func (allSourcesReady) AddSource(string) {}
func (allSourcesReady) AllReady() bool   { return true }

// Start starts the device manager and serves PodResources v1 on podResourcesSocket.
func Start(podResourcesSocket string) (*Kubelet, error) {
	k := &Kubelet{active: map[types.UID]*v1.Pod{}, prSock: podResourcesSocket, logger: klog.Background()}
	// The kubelet of a new node has no checkpoint: every Kubelet of a run shares PluginDir, and the
	// device manager would read back the pods of an earlier one (Restart keeps it, as a kubelet does).
	if err := os.Remove(filepath.Join(PluginDir, checkpointFile)); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	if err := k.startManager(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(podResourcesSocket), 0o750); err != nil {
		return nil, err
	}
	_ = os.Remove(podResourcesSocket)
	ln, err := net.Listen("unix", podResourcesSocket)
	if err != nil {
		return nil, fmt.Errorf("PodResources socket %s: %w", podResourcesSocket, err)
	}
	k.pr = grpc.NewServer()
	providers := podresources.PodResourcesProviders{
		Pods: pods{k}, Devices: devices{k}, Cpus: noCPUs{}, Memory: noMemory{}, DynamicResources: noDRA{},
	}
	podresourcesapi.RegisterPodResourcesListerServer(k.pr, podresources.NewV1PodResourcesServer(context.Background(), providers))
	go k.pr.Serve(ln)
	return k, nil
}

func (k *Kubelet) startManager() error {
	if err := os.MkdirAll(PluginDir, 0o750); err != nil {
		return err
	}
	mgr, err := newUpstreamManager(k.logger)
	if err != nil {
		return err
	}
	if err := mgr.start(k.activePods); err != nil {
		return err
	}
	k.mu.Lock()
	k.mgr = mgr
	k.mu.Unlock()
	return nil
}

// Restart stops the device manager and starts a new one, as a kubelet restart does: the new one
// deletes every socket in the plugin directory, reads the checkpoint, and waits for plugins to
// register again.
func (k *Kubelet) Restart() error {
	if err := k.manager().stop(); err != nil {
		return err
	}
	return k.startManager()
}

// Stop stops the device manager and the PodResources server.
func (k *Kubelet) Stop() {
	_ = k.manager().stop()
	k.pr.Stop()
}

func (k *Kubelet) manager() *upstreamManager {
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

// Healthy is how many healthy devices of resource the manager has (node allocatable).
func (k *Kubelet) Healthy(resource string) int {
	_, allocatable := k.Capacity(resource)
	return allocatable
}

// WaitHealthy waits until resource has n healthy devices.
func (k *Kubelet) WaitHealthy(resource string, n int, timeout time.Duration) error {
	err := harness.Eventually(context.Background(), 100*time.Millisecond, timeout, func(context.Context) error {
		if got := k.Healthy(resource); got != n {
			return fmt.Errorf("%d healthy devices, want %d", got, n)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w (did the plugin register and list its devices?)", resource, err)
	}
	return nil
}

// Admit allocates devices for every container of the pod the way the kubelet's admission does
// (init containers first, then app containers; within a container the resources in Go map order),
// and returns each container's devices per resource.
func (k *Kubelet) Admit(pod *v1.Pod) (map[string]map[string][]string, error) {
	k.mu.Lock()
	k.active[pod.UID] = pod
	k.mu.Unlock()
	mgr := k.manager()
	out := map[string]map[string][]string{}
	for _, cs := range [][]v1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			c := &cs[i]
			if err := mgr.allocate(pod, c); err != nil {
				return nil, fmt.Errorf("admit %s/%s container %s: %w", pod.Namespace, pod.Name, c.Name, err)
			}
			got := map[string][]string{}
			for res, devs := range mgr.GetDevices(string(pod.UID), c.Name) {
				for id := range devs {
					got[res] = append(got[res], id)
				}
			}
			out[c.Name] = got
		}
	}
	return out, nil
}

// Env is the environment the device plugins' Allocate answers gave the container (what the kubelet
// passes to the runtime).
func (k *Kubelet) Env(pod *v1.Pod, container string) (map[string]string, error) {
	opts, err := k.runOptions(pod, container)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	if opts != nil {
		for _, e := range opts.Envs {
			env[e.Name] = e.Value
		}
	}
	return env, nil
}

// DevicePaths are the host paths of the device nodes the device plugins' Allocate answers gave the
// container (what the kubelet passes to the runtime), sorted.
func (k *Kubelet) DevicePaths(pod *v1.Pod, container string) ([]string, error) {
	opts, err := k.runOptions(pod, container)
	if err != nil {
		return nil, err
	}
	var paths []string
	if opts != nil {
		for _, d := range opts.Devices {
			paths = append(paths, d.PathOnHost)
		}
	}
	sort.Strings(paths)
	return paths, nil
}

// runOptions are the device manager's run options of one app container of the pod.
func (k *Kubelet) runOptions(pod *v1.Pod, container string) (*devicemanager.DeviceRunContainerOptions, error) {
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if c.Name == container {
			return k.manager().runOptions(pod, c)
		}
	}
	return nil, fmt.Errorf("pod %s/%s has no container %s", pod.Namespace, pod.Name, container)
}

// InUse lists the devices of resource the device manager holds for the active pods, init containers
// included (PodResources never lists an ordinary init container, whose devices the pod keeps).
func (k *Kubelet) InUse(resource string) []string {
	mgr := k.manager()
	seen := map[string]bool{}
	for _, p := range k.activePods() {
		for _, cs := range [][]v1.Container{p.Spec.InitContainers, p.Spec.Containers} {
			for _, c := range cs {
				for id := range mgr.GetDevices(string(p.UID), c.Name)[resource] {
					seen[id] = true
				}
			}
		}
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Allocatable lists the devices of resource the device manager offers (healthy, as PodResources'
// GetAllocatableResources reports them), sorted.
func (k *Kubelet) Allocatable(resource string) []string {
	var out []string
	for id := range k.manager().allocatable()[resource] {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Forget drops the pod (it ended) and frees its devices, as the kubelet does for terminated pods.
func (k *Kubelet) Forget(uid types.UID) {
	k.mu.Lock()
	delete(k.active, uid)
	k.mu.Unlock()
	k.manager().updateAllocated()
}

// pods answers PodResources from the pods this kubelet admitted.
type pods struct{ k *Kubelet }

func (p pods) GetActivePods() []*v1.Pod { return p.k.activePods() }
func (p pods) GetPods() []*v1.Pod       { return p.k.activePods() }
func (p pods) GetPodByName(ns, name string) (*v1.Pod, bool) {
	for _, pod := range p.k.activePods() {
		if pod.Namespace == ns && pod.Name == name {
			return pod, true
		}
	}
	return nil, false
}

// devices answers PodResources from the device manager, converted as the kubelet's container manager
// converts it (one ContainerDevices per resource and NUMA node).
type devices struct{ k *Kubelet }

func (d devices) GetDevices(podUID, containerName string) []*podresourcesapi.ContainerDevices {
	return convert(d.k.manager().GetDevices(podUID, containerName))
}

func convert(in devicemanager.ResourceDeviceInstances) []*podresourcesapi.ContainerDevices {
	var out []*podresourcesapi.ContainerDevices
	for res, devs := range in {
		for id, dev := range devs {
			cd := &podresourcesapi.ContainerDevices{ResourceName: res, DeviceIds: []string{id}}
			if dev != nil && dev.Topology != nil {
				cd.Topology = &podresourcesapi.TopologyInfo{}
				for _, n := range dev.Topology.Nodes {
					cd.Topology.Nodes = append(cd.Topology.Nodes, &podresourcesapi.NUMANode{ID: n.ID})
				}
			}
			out = append(out, cd)
		}
	}
	return out
}
