//go:build e2e

package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	nadutils "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/utils"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"tandem.dev/e2e/internal/harness"
	"tandem.dev/e2e/internal/nodeside"
)

// vf is one SR-IOV virtual function of the fake node: its PCI address (the plugin's device id in sriov
// mode), its PF's and its RDMA device.
type vf struct{ addr, pf, ib string }

// sriovNode is a node with two ConnectX PFs, each with two RDMA VFs, as sysfs shows it.
var sriovNode = []vf{
	{"0000:01:00.2", "0000:01:00.0", "mlx5_2"}, {"0000:01:00.3", "0000:01:00.0", "mlx5_3"},
	{"0000:02:00.2", "0000:02:00.0", "mlx5_4"}, {"0000:02:00.3", "0000:02:00.0", "mlx5_5"},
}

// TestNodeSideHandsVfsToCni: Tandem's plugin in sriov mode, discovering a fake node through sysfs, is
// admitted against by the kubelet's own device manager; the Device Information files it writes are read
// back with the Network Plumbing WG client's loader (what Multus calls to copy them for SR-IOV CNI), and
// they disappear when the pod's devices are released, after a plugin crash and restart, and on SIGTERM.
func TestNodeSideHandsVfsToCni(t *testing.T) {
	if os.Getenv("E2E_NODESIDE") != "1" {
		t.Fatal("the node side needs a private mount namespace with a tmpfs on /var/lib/kubelet and /var/run/k8s.cni.cncf.io; run it with e2e/run")
	}
	sysfs := filepath.Join(cl.env.Dir, "sysfs-sriov")
	if err := sriovSysfs(sysfs, sriovNode); err != nil {
		t.Fatal(err)
	}
	prSock := filepath.Join(cl.env.Dir, "pod-resources-cni", "kubelet.sock")
	cfg := filepath.Join(cl.env.Dir, "sriov.json")
	if err := os.WriteFile(cfg, []byte(`{"mode":"sriov"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each subtest has a device manager of its own and starts the plugin itself.
	start := func(t *testing.T, kubelet *nodeside.Kubelet, logName string) *harness.Proc {
		t.Helper()
		argv := append([]string{cl.env.Java}, javaArgs("96m", cl.env.Jar("device-plugin"),
			"--node-name", "sriov-node",
			"--sysfs-root", sysfs,
			"--config", cfg,
			"--no-kube",
			"--plugin-dir", nodeside.PluginDir,
			"--pod-resources-socket", prSock,
			"--device-info-reconcile-seconds", "1",
			"--ops-port", fmt.Sprint(harness.FreePort()))...)
		p, err := harness.Start(cl.env.Logs(), logName, []string{"NODE_NAME=sriov-node"}, argv...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Stop(10 * time.Second) })
		if err := kubelet.WaitHealthy("rdma/hca", len(sriovNode), 60*time.Second); err != nil {
			t.Fatalf("Tandem's plugin in sriov mode did not offer the %d VFs: %v; see %s", len(sriovNode), err, p.Log)
		}
		return p
	}

	t.Run("ReleasedWithThePod", func(t *testing.T) {
		kubelet := startKubelet(t, prSock)
		plugin := start(t, kubelet, "device-plugin-sriov")
		a := cniPod("cni-a", 2)
		ids := admitHcas(t, kubelet, a)
		for _, id := range ids {
			assertDeviceInfo(t, id, plugin.Log)
		}
		env, err := kubelet.Env(a, "main")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Split(env["PCIDEVICE_RDMA_HCA"], ","); !sameSet(got, ids) {
			t.Errorf("PCIDEVICE_RDMA_HCA=%q, want the VFs the kubelet granted %v (env %v)", env["PCIDEVICE_RDMA_HCA"], ids, env)
		}
		t.Logf("pod %s: VFs %v, each with its device-info file as the NAD client reads it; PCIDEVICE_RDMA_HCA=%s", a.Name, ids, env["PCIDEVICE_RDMA_HCA"])
		kubelet.Forget(a.UID)
		waitNoDeviceInfo(t, ids, 30*time.Second, plugin.Log)
	})

	t.Run("StaleAfterARestart", func(t *testing.T) {
		kubelet := startKubelet(t, prSock)
		plugin := start(t, kubelet, "device-plugin-sriov-killed")
		kept, released := cniPod("cni-b", 1), cniPod("cni-c", 1)
		keptIDs, releasedIDs := admitHcas(t, kubelet, kept), admitHcas(t, kubelet, released)
		plugin.Kill()
		kubelet.Forget(released.UID)
		plugin = start(t, kubelet, "device-plugin-sriov-restarted")
		waitNoDeviceInfo(t, releasedIDs, 60*time.Second, plugin.Log)
		for _, id := range keptIDs {
			assertDeviceInfo(t, id, plugin.Log)
		}

		plugin.Stop(10 * time.Second)
		waitNoDeviceInfo(t, keptIDs, 5*time.Second, plugin.Log)
		kubelet.Forget(kept.UID)
	})
}

// cniPod is a pod of one container asking for n rdma/hca devices.
func cniPod(name string, n int64) *corev1.Pod {
	q := *resource.NewQuantity(n, resource.DecimalSI)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "cni", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:      "main",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"rdma/hca": q}, Requests: corev1.ResourceList{"rdma/hca": q}},
		}}},
	}
}

func admitHcas(t *testing.T, kubelet *nodeside.Kubelet, pod *corev1.Pod) []string {
	t.Helper()
	got, err := kubelet.Admit(pod)
	if err != nil {
		t.Fatal(err)
	}
	ids := got["main"]["rdma/hca"]
	want := pod.Spec.Containers[0].Resources.Limits["rdma/hca"]
	if int64(len(ids)) != want.Value() {
		t.Fatalf("pod %s admitted with rdma/hca %v, asked for %d", pod.Name, ids, want.Value())
	}
	return ids
}

// assertDeviceInfo reads the device's file with the NAD client's loader, exactly as Multus does with the
// NetworkAttachmentDefinition's resourceName and the device id from PodResources.
func assertDeviceInfo(t *testing.T, id, log string) {
	t.Helper()
	info, err := nadutils.LoadDeviceInfoFromDP("rdma/hca", id)
	if err != nil {
		t.Fatalf("LoadDeviceInfoFromDP(rdma/hca, %s): %v; see %s", id, err, log)
	}
	var want vf
	for _, v := range sriovNode {
		if v.addr == id {
			want = v
		}
	}
	if info.Type != nadv1.DeviceInfoTypePCI || info.Version != nadv1.DeviceInfoVersion || info.Pci == nil {
		t.Fatalf("device info of %s: type %q version %q pci %v, want pci, %s", id, info.Type, info.Version, info.Pci, nadv1.DeviceInfoVersion)
	}
	if info.Pci.PciAddress != want.addr || info.Pci.PfPciAddress != want.pf || info.Pci.RdmaDevice != want.ib {
		t.Errorf("device info of %s: pci-address %q pf-pci-address %q rdma-device %q, want %q %q %q",
			id, info.Pci.PciAddress, info.Pci.PfPciAddress, info.Pci.RdmaDevice, want.addr, want.pf, want.ib)
	}
}

// waitNoDeviceInfo waits until the loader finds none of the devices' files.
func waitNoDeviceInfo(t *testing.T, ids []string, within time.Duration, log string) {
	t.Helper()
	err := harness.Eventually(context.Background(), 200*time.Millisecond, within, func(context.Context) error {
		var left []string
		for _, id := range ids {
			if _, err := nadutils.LoadDeviceInfoFromDP("rdma/hca", id); err == nil {
				left = append(left, id)
			} else if !os.IsNotExist(err) {
				return harness.Permanent(fmt.Errorf("LoadDeviceInfoFromDP(rdma/hca, %s): %w", id, err))
			}
		}
		if len(left) > 0 {
			return fmt.Errorf("device-info files of %v still there", left)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%v; see %s", err, log)
	}
}

// sriovSysfs writes the sysfs tree of a node with ConnectX PFs and their RDMA VFs: per function its
// class, vendor, device, NUMA node and /sys/bus/pci/devices link; per RDMA device its
// <function>/infiniband/<ib> entry (device link, port 1 ACTIVE) with /sys/class/infiniband/<ib> a link
// to it, uverbs character device, and for a VF the
// physfn link to its PF. No GPUs: the CNI hand-off needs none.
func sriovSysfs(root string, vfs []vf) error {
	type fn struct{ addr, ib, device, pf string }
	var fns []fn
	pfIB := map[string]string{"0000:01:00.0": "mlx5_0", "0000:02:00.0": "mlx5_1"}
	for _, pf := range []string{"0000:01:00.0", "0000:02:00.0"} {
		fns = append(fns, fn{pf, pfIB[pf], "0x101b", ""})
	}
	for _, v := range vfs {
		fns = append(fns, fn{v.addr, v.ib, "0x101c", v.pf})
	}
	write := func(path, text string) error {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(text+"\n"), 0o644)
	}
	link := func(at, target string) error {
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			return err
		}
		rel, err := filepath.Rel(filepath.Dir(at), target)
		if err != nil {
			return err
		}
		return os.Symlink(rel, at)
	}
	sys := filepath.Join(root, "sys")
	if err := write(filepath.Join(sys, "devices", "system", "node", "node0", "cpulist"), "0-3"); err != nil {
		return err
	}
	host := filepath.Join(sys, "devices", "pci0000:00")
	for i, f := range fns {
		port := fmt.Sprintf("0000:00:%02x.0", f.addr[6]-'0')
		portDir := filepath.Join(host, port)
		dir := filepath.Join(portDir, f.addr)
		files := map[string]string{
			filepath.Join(portDir, "class"): "0x060400", filepath.Join(portDir, "vendor"): "0x8086",
			filepath.Join(portDir, "device"): "0x1234", filepath.Join(portDir, "numa_node"): "0",
			filepath.Join(dir, "class"): "0x020700", filepath.Join(dir, "vendor"): "0x15b3",
			filepath.Join(dir, "device"): f.device, filepath.Join(dir, "numa_node"): "0",
			filepath.Join(dir, "local_cpulist"):                                                  "0-3",
			filepath.Join(dir, "infiniband", f.ib, "ports", "1", "state"):                        "4: ACTIVE",
			filepath.Join(dir, "infiniband", f.ib, "ports", "1", "link_layer"):                   "InfiniBand",
			filepath.Join(sys, "class", "infiniband_verbs", fmt.Sprintf("uverbs%d", i), "ibdev"): f.ib,
		}
		for p, text := range files {
			if err := write(p, text); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(filepath.Join(dir, "infiniband_verbs", fmt.Sprintf("uverbs%d", i)), 0o755); err != nil {
			return err
		}
		busLink := filepath.Join(sys, "bus", "pci", "devices", port)
		if _, err := os.Lstat(busLink); os.IsNotExist(err) {
			if err := link(busLink, portDir); err != nil {
				return err
			}
		}
		if err := link(filepath.Join(sys, "bus", "pci", "devices", f.addr), dir); err != nil {
			return err
		}
		// as the kernel lays it out: the ibverbs device under its PCI function, /sys/class a link to it
		if err := link(filepath.Join(dir, "infiniband", f.ib, "device"), dir); err != nil {
			return err
		}
		if err := link(filepath.Join(sys, "class", "infiniband", f.ib), filepath.Join(dir, "infiniband", f.ib)); err != nil {
			return err
		}
		if f.pf != "" {
			if err := link(filepath.Join(dir, "physfn"), filepath.Join(portDir, f.pf)); err != nil {
				return err
			}
		}
	}
	return nil
}
