package nodeside

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
)

// Device is one device a stand-in plugin lists.
type Device struct {
	ID   string
	NUMA *int
}

// Stub is a running stand-in plugin.
type Stub struct {
	mu     sync.Mutex
	stub   upstreamStub
	cancel context.CancelFunc
	done   chan struct{}
}

// StubPlugin serves resource with the kubelet's own device-plugin test stub (no preferred
// allocation: the kubelet then picks among available devices in its own set order), registers it,
// and re-registers when the kubelet restarts (a new kubelet.sock appears).
func StubPlugin(ctx context.Context, resource, endpoint string, devs []Device) (*Stub, error) {
	return startStub(ctx, resource, endpoint, devs, nil)
}

// StubPluginPreferring is StubPlugin with a preferred allocation: its n-th GetPreferredAllocation call
// answers prefer[n] (the devices of it still available, then the kubelet's order), as a plugin that
// follows a plan container by container does; after the last list, the kubelet's order.
func StubPluginPreferring(ctx context.Context, resource, endpoint string, devs []Device, prefer [][]string) (*Stub, error) {
	return startStub(ctx, resource, endpoint, devs, prefer)
}

func startStub(ctx context.Context, resource, endpoint string, devs []Device, prefer [][]string) (*Stub, error) {
	var list []*pluginapi.Device
	for _, d := range devs {
		pd := &pluginapi.Device{ID: d.ID, Health: pluginapi.Healthy}
		if d.NUMA != nil {
			pd.Topology = &pluginapi.TopologyInfo{Nodes: []*pluginapi.NUMANode{{ID: int64(*d.NUMA)}}}
		}
		list = append(list, pd)
	}
	stub := newUpstreamStub(list, filepath.Join(PluginDir, endpoint), resource, prefer != nil)
	if prefer != nil {
		var mu sync.Mutex
		calls := 0
		stub.SetGetPreferredAllocFunc(func(r *pluginapi.PreferredAllocationRequest, _ map[string]*pluginapi.Device) (*pluginapi.PreferredAllocationResponse, error) {
			mu.Lock()
			defer mu.Unlock()
			resp := &pluginapi.PreferredAllocationResponse{}
			for _, c := range r.ContainerRequests {
				var want []string
				if calls < len(prefer) {
					want = prefer[calls]
				}
				calls++
				resp.ContainerResponses = append(resp.ContainerResponses,
					&pluginapi.ContainerPreferredAllocationResponse{DeviceIDs: preferred(c, want)})
			}
			return resp, nil
		})
	}
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
	if err := stub.start(ctx); err != nil {
		return nil, err
	}
	if err := stub.register(ctx, resource); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Stub{stub: stub, cancel: cancel, done: make(chan struct{})}
	go s.reregister(ctx, resource)
	return s, nil
}

// reregister restarts the stub's server and registers again whenever kubelet.sock is a new file, as
// the stub's own Watch does. (Watch cannot be stopped: once the stub is stopped it spins on its closed
// fsnotify channels.)
func (s *Stub) reregister(ctx context.Context, resource string) {
	defer close(s.done)
	seen, _ := os.Stat(pluginapi.KubeletSocket)
	// The watch's pace: kubelet.sock is looked at every 200 ms for as long as the stub serves.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now, err := os.Stat(pluginapi.KubeletSocket)
		if err != nil || (seen != nil && os.SameFile(seen, now)) {
			continue
		}
		seen = now
		s.mu.Lock()
		err = s.stub.restart(ctx)
		if err == nil {
			err = s.stub.register(ctx, resource)
		}
		s.mu.Unlock()
		if err != nil {
			klog.Background().Error(err, "stand-in plugin could not register again after a kubelet restart", "resource", resource)
			seen = nil
		}
	}
}

// Stop stops re-registering and serving; the kubelet sees the plugin disconnect.
func (s *Stub) Stop() error {
	s.cancel()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stub.stop()
}

// preferred is size devices of the request: must-include ones, then want's available ones, then the
// kubelet's order.
func preferred(c *pluginapi.ContainerPreferredAllocationRequest, want []string) []string {
	size := int(c.AllocationSize)
	out := append([]string{}, c.MustIncludeDeviceIDs...)
	for _, group := range [][]string{want, c.AvailableDeviceIDs} {
		for _, id := range group {
			if len(out) < size && slices.Contains(c.AvailableDeviceIDs, id) && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}
