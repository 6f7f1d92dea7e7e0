//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
	"tandem.dev/e2e/internal/nodeside"
)

// p4dEFAs are the AWS p4d's EFA functions as its NCCL topology file places them, with the ibverbs
// name the kernel's efa driver gives each ("efa_%d"); "" is an EFA whose driver is not loaded.
var p4dEFAs = []vmFunction{
	{"0000:10:1b.0", 0, "efa_0"}, {"0000:20:1b.0", 0, ""}, {"0000:90:1b.0", 1, "efa_2"}, {"0000:a0:1b.0", 1, "efa_3"},
}

// p4dGPUs are its A100s, by bus id and NUMA node.
var p4dGPUs = []vmFunction{
	{"0000:10:1c.0", 0, ""}, {"0000:10:1d.0", 0, ""}, {"0000:20:1c.0", 0, ""}, {"0000:20:1d.0", 0, ""},
	{"0000:90:1c.0", 1, ""}, {"0000:90:1d.0", 1, ""}, {"0000:a0:1c.0", 1, ""}, {"0000:a0:1d.0", 1, ""},
}

type vmFunction struct {
	address string
	numa    int
	ib      string
}

// TestNodeSideVM: an AWS p4d VM read from its NCCL topology file. Its sysfs is written as the kernel
// shows a VM (each device a PCI function below a host bridge of its own; the efa driver's infiniband/
// and infiniband_verbs/ under each EFA but one) with the NVIDIA driver's procfs. The real agent
// publishes the NodeTopology; Tandem's plugin registers rdma/hca with the kubelet's real device
// manager. The devices the kubelet offers are the NodeTopology's healthy HCAs, the same strings (the
// ibverbs names); the EFA without its driver is published unhealthy by its bus id, with the note
// naming it, and is not offered; the GPUs are published by the UUIDs the driver's procfs gives.
func TestNodeSideVM(t *testing.T) {
	if os.Getenv("E2E_NODESIDE") != "1" {
		t.Fatal("the node side needs a private mount namespace with a tmpfs on /var/lib/kubelet; run it with e2e/run")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	node := "vm-p4d"
	if err := cl.c.CreateNode(ctx, harness.NodeSpec{Name: node, GPUs: len(p4dGPUs), HCAs: len(p4dEFAs),
		Labels: map[string]string{groupLabel: "vm"}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cl.mu.Lock()
		agent := cl.agents[node]
		delete(cl.agents, node)
		cl.mu.Unlock()
		if agent != nil {
			agent.Stop(10 * time.Second)
		}
		_ = cl.c.DeletePodNow(ctx, "tandem-system", agentPodName(node))
		_ = cl.c.Dynamic.Resource(harness.NodeTopologies).Delete(ctx, node, metav1.DeleteOptions{})
		_ = cl.c.Kube.CoreV1().Nodes().Delete(ctx, node, metav1.DeleteOptions{})
	})
	sysfs := filepath.Join(cl.env.Dir, "sysfs-"+node)
	uuids, err := writeVMSysfs(sysfs, p4dGPUs, p4dEFAs)
	if err != nil {
		t.Fatal(err)
	}
	discovery := []string{"--nccl-topo", cl.env.Topology("nccl-topo/aws-p4d.24xlarge.xml"), "--sysfs-root", sysfs}
	if err := cl.startAgentOn(node, discovery...); err != nil {
		t.Fatal(err)
	}
	kubelet, err := nodeside.Start(filepath.Join(cl.env.Dir, "pod-resources", "kubelet.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer kubelet.Stop()
	plugin, err := cl.launchPluginOn(node, sysfs, discovery[:2], "device-plugin-"+node)
	if err != nil {
		t.Fatal(err)
	}
	defer plugin.Stop(10 * time.Second)
	if err := kubelet.WaitHealthy("rdma/hca", 3, 60*time.Second); err != nil {
		t.Fatalf("%v; see %s", err, plugin.Log)
	}
	offered := kubelet.Allocatable("rdma/hca")
	if want := []string{"efa_0", "efa_2", "efa_3"}; !reflect.DeepEqual(offered, want) {
		t.Fatalf("the kubelet's device manager offers rdma/hca %v, want the ibverbs names %v", offered, want)
	}

	var topo *harness.Topology
	eventually(t, time.Minute, "the agent publishes NodeTopology "+node+" with its notes", func(ctx context.Context) error {
		topo, err = cl.c.GetTopology(ctx, node)
		if err == nil && len(topo.Status.Notes) == 0 {
			err = fmt.Errorf("no status notes yet")
		}
		return err
	})
	var healthy, unhealthy, gpus []string
	for _, d := range topo.Spec.Devices {
		switch {
		case d.Kind == "GPU":
			gpus = append(gpus, d.ID)
		case d.Healthy:
			healthy = append(healthy, d.ID)
		default:
			unhealthy = append(unhealthy, d.ID)
		}
	}
	sort.Strings(healthy)
	sort.Strings(gpus)
	if !reflect.DeepEqual(healthy, offered) {
		t.Errorf("NodeTopology's healthy HCAs %v, the kubelet's rdma/hca devices %v: not the same ids", healthy, offered)
	}
	if want := []string{"0000:20:1b.0"}; !reflect.DeepEqual(unhealthy, want) {
		t.Errorf("unhealthy HCAs %v, want the driverless EFA by its bus id %v", unhealthy, want)
	}
	if !reflect.DeepEqual(gpus, uuids) {
		t.Errorf("GPU ids %v, want the driver's UUIDs %v", gpus, uuids)
	}
	noted := false
	for _, n := range topo.Status.Notes {
		noted = noted || (strings.Contains(n, "HCA at PCI 0000:20:1b.0") && strings.Contains(n, "efa on AWS"))
	}
	if !noted {
		t.Errorf("no note names the driverless EFA 0000:20:1b.0 and its driver: %q", topo.Status.Notes)
	}
	t.Logf("p4d VM: the kubelet offers rdma/hca %v = NodeTopology's healthy HCAs; 0000:20:1b.0 unhealthy; %d GPUs by UUID", offered, len(gpus))
}

// writeVMSysfs writes a VM's sysfs as the kernel shows it: each function under
// sys/devices/pciDDDD:BB/<address> with class, vendor, device and numa_node, linked from
// sys/bus/pci/devices; a named EFA's infiniband/<ib> (port 1 ACTIVE, device link) and
// infiniband_verbs/uverbsN, linked from sys/class; each GPU's proc/driver/nvidia/gpus/<address>/information.
// It returns the GPU UUIDs, sorted.
func writeVMSysfs(root string, gpus, efas []vmFunction) ([]string, error) {
	var uuids []string
	for i, g := range gpus {
		if _, err := vmFunc(root, g, "0x030200", "0x10de", "0x20b0"); err != nil {
			return nil, err
		}
		uuid := fmt.Sprintf("GPU-e2e00000-0000-4000-8000-%012d", i)
		uuids = append(uuids, uuid)
		info := fmt.Sprintf("Model: \t\t NVIDIA A100-SXM4-40GB\nGPU UUID: \t %s\nBus Location: \t %s\n", uuid, g.address)
		if err := writeFile(filepath.Join(root, "proc", "driver", "nvidia", "gpus", g.address, "information"), info); err != nil {
			return nil, err
		}
	}
	for i, e := range efas {
		fn, err := vmFunc(root, e, "0x020000", "0x1d0f", "0xefa0")
		if err != nil {
			return nil, err
		}
		if e.ib == "" {
			continue
		}
		ib := filepath.Join(fn, "infiniband", e.ib)
		verbs := filepath.Join(fn, "infiniband_verbs", fmt.Sprintf("uverbs%d", i))
		for file, text := range map[string]string{
			filepath.Join(ib, "ports", "1", "state"):      "4: ACTIVE",
			filepath.Join(ib, "ports", "1", "link_layer"): "Unknown",
			filepath.Join(verbs, "ibdev"):                 e.ib,
		} {
			if err := writeFile(file, text+"\n"); err != nil {
				return nil, err
			}
		}
		for link, target := range map[string]string{
			filepath.Join(ib, "device"):                                                   fn,
			filepath.Join(root, "sys", "class", "infiniband", e.ib):                       ib,
			filepath.Join(root, "sys", "class", "infiniband_verbs", filepath.Base(verbs)): verbs,
		} {
			if err := relLink(link, target); err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(uuids)
	return uuids, nil
}

// vmFunc writes one PCI function right below a host bridge of its own and links it from the PCI bus.
func vmFunc(root string, f vmFunction, class, vendor, device string) (string, error) {
	fn := filepath.Join(root, "sys", "devices", "pci"+f.address[:7], f.address)
	for name, text := range map[string]string{"class": class, "vendor": vendor, "device": device, "numa_node": fmt.Sprint(f.numa)} {
		if err := writeFile(filepath.Join(fn, name), text+"\n"); err != nil {
			return "", err
		}
	}
	return fn, relLink(filepath.Join(root, "sys", "bus", "pci", "devices", f.address), fn)
}

func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// relLink makes a relative symbolic link, as sysfs has them.
func relLink(link, target string) error {
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(link), target)
	if err != nil {
		return err
	}
	return os.Symlink(rel, link)
}
