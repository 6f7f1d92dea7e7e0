//go:build !k8s134

package nodeside

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"
	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
	plugin "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/plugin/v1beta1"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
)

// This file and upstream_k134.go are the only places the kubelet's Go API differs between the
// Kubernetes versions the harness builds against (Kubernetes 1.35 added a logger or context to most
// calls); the default build is Kubernetes 1.37, -tags k8s134 with go.k134.mod is Kubernetes 1.34.

// upstreamManager is the kubelet's device manager with the calls the harness makes.
type upstreamManager struct {
	*devicemanager.ManagerImpl
	logger klog.Logger
}

func newUpstreamManager(logger klog.Logger) (*upstreamManager, error) {
	mgr, err := devicemanager.NewManagerImpl(logger, nil, topologymanager.NewFakeManager(logger))
	if err != nil {
		return nil, err
	}
	return &upstreamManager{ManagerImpl: mgr, logger: logger}, nil
}

func (m *upstreamManager) start(activePods devicemanager.ActivePodsFunc) error {
	return m.Start(m.logger, activePods, allSourcesReady{}, containermap.NewContainerMap(), sets.New[string]())
}

func (m *upstreamManager) stop() error { return m.Stop(m.logger) }

func (m *upstreamManager) allocate(pod *v1.Pod, c *v1.Container) error {
	return m.Allocate(klog.NewContext(context.Background(), m.logger), pod, c, lifecycle.AddOperation)
}

// capacity is the device manager's capacity and allocatable (healthy) devices per resource.
func (m *upstreamManager) capacity() (capacity, allocatable v1.ResourceList) {
	capacity, allocatable, _ = m.GetCapacity(m.logger)
	return capacity, allocatable
}

func (m *upstreamManager) runOptions(pod *v1.Pod, c *v1.Container) (*devicemanager.DeviceRunContainerOptions, error) {
	return m.GetDeviceRunContainerOptions(context.Background(), pod, c)
}

func (m *upstreamManager) allocatable() devicemanager.ResourceDeviceInstances {
	return m.GetAllocatableDevices(m.logger)
}

func (m *upstreamManager) updateAllocated() { m.UpdateAllocatedDevices(m.logger) }

// upstreamStub is the kubelet's device-plugin test stub.
type upstreamStub struct{ *plugin.Stub }

func newUpstreamStub(devs []*pluginapi.Device, socket, resource string, preferred bool) upstreamStub {
	return upstreamStub{plugin.NewDevicePluginStub(klog.Background(), devs, socket, resource, false, preferred)}
}

func (s upstreamStub) start(ctx context.Context) error   { return s.Start(ctx) }
func (s upstreamStub) restart(ctx context.Context) error { return s.Restart(ctx) }
func (s upstreamStub) stop() error                       { return s.Stop(klog.Background()) }
func (s upstreamStub) register(ctx context.Context, resource string) error {
	return s.Register(ctx, pluginapi.KubeletSocket, resource, PluginDir+"/")
}

// The PodResources providers' calls that differ between versions.

func (d devices) UpdateAllocatedDevices(klog.Logger) { d.k.manager().updateAllocated() }
func (d devices) GetAllocatableDevices(klog.Logger) []*podresourcesapi.ContainerDevices {
	return convert(d.k.manager().allocatable())
}

type noCPUs struct{}

func (noCPUs) GetCPUs(*v1.Pod, *v1.Container) []int64 { return nil }
func (noCPUs) GetPodCPUs(string) []int64              { return nil }
func (noCPUs) GetAllocatableCPUs() []int64            { return nil }

type noMemory struct{}

func (noMemory) GetMemory(klog.Logger, *v1.Pod, *v1.Container) []*podresourcesapi.ContainerMemory {
	return nil
}
func (noMemory) GetPodMemory(klog.Logger, string) []*podresourcesapi.ContainerMemory { return nil }
func (noMemory) GetAllocatableMemory(klog.Logger) []*podresourcesapi.ContainerMemory { return nil }

type noDRA struct{}

func (noDRA) GetDynamicResources(klog.Logger, *v1.Pod, *v1.Container) []*podresourcesapi.DynamicResource {
	return nil
}
