package nodeside

import (
	"context"
	"path/filepath"
	"strings"

	"k8s.io/klog/v2"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
	plugin "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/plugin/v1beta1"
)

// Device is one device a stand-in plugin lists.
type Device struct {
	ID   string
	NUMA *int
}

// StubPlugin serves resource with the kubelet's own device-plugin test stub (no preferred
// allocation: the kubelet then picks among available devices in its own set order), registers it,
// and re-registers when the kubelet restarts (the stub watches kubelet.sock).
func StubPlugin(ctx context.Context, resource, endpoint string, devs []Device) (*plugin.Stub, error) {
	var list []*pluginapi.Device
	for _, d := range devs {
		pd := &pluginapi.Device{ID: d.ID, Health: pluginapi.Healthy}
		if d.NUMA != nil {
			pd.Topology = &pluginapi.TopologyInfo{Nodes: []*pluginapi.NUMANode{{ID: int64(*d.NUMA)}}}
		}
		list = append(list, pd)
	}
	stub := plugin.NewDevicePluginStub(klog.Background(), list, filepath.Join(PluginDir, endpoint), resource, false, false)
	// One response per container request, naming the devices as NVIDIA's plugin does in its
	// environment variable (the stub's default answers none, which the kubelet rejects).
	stub.SetAllocFunc(func(r *pluginapi.AllocateRequest, _ map[string]*pluginapi.Device) (*pluginapi.AllocateResponse, error) {
		resp := &pluginapi.AllocateResponse{}
		for _, c := range r.ContainerRequests {
			resp.ContainerResponses = append(resp.ContainerResponses, &pluginapi.ContainerAllocateResponse{
				Envs: map[string]string{"E2E_VISIBLE_DEVICES": strings.Join(c.DevicesIds, ",")},
			})
		}
		return resp, nil
	})
	if err := stub.Start(ctx); err != nil {
		return nil, err
	}
	if err := stub.Register(ctx, pluginapi.KubeletSocket, resource, PluginDir+"/"); err != nil {
		return nil, err
	}
	go stub.Watch(ctx, pluginapi.KubeletSocket, resource, PluginDir+"/")
	return stub, nil
}
