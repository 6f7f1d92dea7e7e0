package nodeside

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	v1 "k8s.io/api/core/v1"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"
)

// Capacity is what the device manager reports for resource now, as the kubelet puts it in the node's
// status: capacity (healthy and unhealthy devices) and allocatable (healthy ones).
func (k *Kubelet) Capacity(resource string) (capacity, allocatable int) {
	c, a := k.manager().capacity()
	if q, ok := c[v1.ResourceName(resource)]; ok {
		capacity = int(q.Value())
	}
	if q, ok := a[v1.ResourceName(resource)]; ok {
		allocatable = int(q.Value())
	}
	return capacity, allocatable
}

// Sample is one reading of Capacity.
type Sample struct {
	At                    time.Time
	Capacity, Allocatable int
}

// Sampler reads Capacity of one resource at a fixed interval until stopped, from whichever device
// manager is current (across Restart).
type Sampler struct {
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	samples []Sample
}

// Sample starts reading resource's capacity every interval.
func (k *Kubelet) Sample(resource string, interval time.Duration) *Sampler {
	s := &Sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval) // the sampling rate the caller chose: a pace, not a wait
		defer t.Stop()
		for {
			c, a := k.Capacity(resource)
			s.mu.Lock()
			s.samples = append(s.samples, Sample{At: time.Now(), Capacity: c, Allocatable: a})
			s.mu.Unlock()
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// Stop ends the sampling and returns every reading, oldest first.
func (s *Sampler) Stop() []Sample {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sample(nil), s.samples...)
}

// Below is how long, within samples, allocatable stayed under want (summed over the gaps between
// readings), and when the first and last such readings were taken.
func Below(samples []Sample, want int, allocatable bool) (total time.Duration, first, last time.Time) {
	for i, s := range samples {
		v := s.Capacity
		if allocatable {
			v = s.Allocatable
		}
		if v >= want {
			continue
		}
		if first.IsZero() {
			first = s.At
		}
		last = s.At
		if i+1 < len(samples) {
			total += samples[i+1].At.Sub(s.At)
		}
	}
	return total, first, last
}

// PodDevices lists, through the PodResources v1 socket as the agent and the plugin read it, the device
// ids each container holds: "namespace/pod/container" → resource → sorted ids.
func PodDevices(ctx context.Context, socket string) (map[string]map[string][]string, error) {
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithAuthority("localhost"))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	resp, err := podresourcesapi.NewPodResourcesListerClient(conn).List(ctx, &podresourcesapi.ListPodResourcesRequest{})
	if err != nil {
		return nil, fmt.Errorf("PodResources List on %s: %w", socket, err)
	}
	out := map[string]map[string][]string{}
	for _, p := range resp.PodResources {
		for _, c := range p.Containers {
			byRes := map[string][]string{}
			for _, d := range c.Devices {
				byRes[d.ResourceName] = append(byRes[d.ResourceName], d.DeviceIds...)
			}
			for r := range byRes {
				sort.Strings(byRes[r])
			}
			out[strings.Join([]string{p.Namespace, p.Name, c.Name}, "/")] = byRes
		}
	}
	return out, nil
}
