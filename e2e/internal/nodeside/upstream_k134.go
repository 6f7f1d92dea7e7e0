//go:build k8s134

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
)

// The kubelet's Go API of Kubernetes 1.34 (go.k134.mod, -tags k8s134): see upstream.go.

// upstreamManager is the kubelet's device manager with the calls the harness makes.
type upstreamManager struct {
	*devicemanager.ManagerImpl
}

func newUpstreamManager(klog.Logger) (*upstreamManager, error) {
	mgr, err := devicemanager.NewManagerImpl(nil, topologymanager.NewFakeManager())
	if err != nil {
		return nil, err
	}
	return &upstreamManager{ManagerImpl: mgr}, nil
}

func (m *upstreamManager) start(activePods devicemanager.ActivePodsFunc) error {
	return m.Start(activePods, allSourcesReady{}, containermap.NewContainerMap(), sets.New[string]())
}

func (m *upstreamManager) stop() error { return m.Stop() }

func (m *upstreamManager) allocate(pod *v1.Pod, c *v1.Container) error { return m.Allocate(pod, c) }

func (m *upstreamManager) capacity() (capacity, allocatable v1.ResourceList) {
	capacity, allocatable, _ = m.GetCapacity()
	return capacity, allocatable
}

func (m *upstreamManager) runOptions(pod *v1.Pod, c *v1.Container) (*devicemanager.DeviceRunContainerOptions, error) {
	return m.GetDeviceRunContainerOptions(pod, c)
}

func (m *upstreamManager) allocatable() devicemanager.ResourceDeviceInstances {
	return m.GetAllocatableDevices()
}

func (m *upstreamManager) updateAllocated() { m.UpdateAllocatedDevices() }

// upstreamStub is the kubelet's device-plugin test stub.
type upstreamStub struct{ *plugin.Stub }

func newUpstreamStub(devs []*pluginapi.Device, socket, resource string, preferred bool) upstreamStub {
	return upstreamStub{plugin.NewDevicePluginStub(devs, socket, resource, false, preferred)}
}

func (s upstreamStub) start(context.Context) error   { return s.Start() }
func (s upstreamStub) restart(context.Context) error { return s.Restart() }
func (s upstreamStub) stop() error                   { return s.Stop() }
func (s upstreamStub) register(_ context.Context, resource string) error {
	return s.Register(pluginapi.KubeletSocket, resource, PluginDir+"/")
}

// The PodResources providers' calls that differ between versions.

func (d devices) UpdateAllocatedDevices() { d.k.manager().updateAllocated() }
func (d devices) GetAllocatableDevices() []*podresourcesapi.ContainerDevices {
	return convert(d.k.manager().allocatable())
}

type noCPUs struct{}

func (noCPUs) GetCPUs(string, string) []int64 { return nil }
func (noCPUs) GetAllocatableCPUs() []int64    { return nil }

type noMemory struct{}

func (noMemory) GetMemory(string, string) []*podresourcesapi.ContainerMemory { return nil }
func (noMemory) GetAllocatableMemory() []*podresourcesapi.ContainerMemory    { return nil }

type noDRA struct{}

func (noDRA) GetDynamicResources(*v1.Pod, *v1.Container) []*podresourcesapi.DynamicResource {
	return nil
}
