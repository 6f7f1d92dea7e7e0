//go:build e2e && !k8s134

package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/dra"
	"tandem.dev/e2e/internal/harness"
	"tandem.dev/e2e/internal/nodeside"
)

const (
	draDriver    = "tandem.dev"
	switchKey    = resourcev1.FullyQualifiedName("tandem.dev/pcieSwitch")
	draDevDir    = "/dev/infiniband"
	cannotAlloc  = "cannot allocate all claims"
	draPodClaim  = "devices"
	draContainer = "main"
)

// TestDRA is issue #33's proof on a real machine's tree: Tandem's Java DRA driver in joint mode
// publishes the node's GPUs and HCAs with their PCIe switch; the real kube-apiserver validates the
// ResourceSlices, kube-controller-manager makes claims from templates, kube-scheduler allocates GPUs
// and HCAs under one switch; the kubelet's own DRA manager registers the driver over its socket and
// prepares and unprepares the claims, and the CDI ids it gets back resolve, through the CDI
// project's library, into the device nodes and environment of exactly the granted devices. The
// driver and the kubelet are restarted with claims prepared.
func TestDRA(t *testing.T) {
	const ns = "dra"
	cl.useDRA(t, ns)
	for _, s := range []int64{1, 2, 4} {
		cl.claimTemplate(t, ns, s)
	}
	// One node at a time: the kubelet's DRA manager and the driver's sockets live in the kubelet's
	// fixed directories. Each sub-test stops its kubelet and driver when it ends.
	t.Run("XE8640", func(t *testing.T) { draXE8640(t, ns) })
	t.Run("HGXH100", func(t *testing.T) { draHGXH100(t, ns) })
	t.Run("DGXA100StorageHcas", func(t *testing.T) { draDGXA100(t, ns) })
	t.Run("SharedHcas", func(t *testing.T) { draSharedHcas(t, ns) })
	t.Run("GB300DataDirect", func(t *testing.T) { draGB300(t, ns) })
	t.Run("GB200NoDataDirect", func(t *testing.T) { draGB200(t, ns) })
}

// useDRA is use for a DRA scenario: beside the shared control plane, kube-controller-manager making
// claims from templates, the driver's ServiceAccount (draKubeconfig) and Tandem's DeviceClasses, all
// removed when t ends. It needs e2e/run's private mount namespace.
func (k *cluster) useDRA(t *testing.T, ns string) {
	t.Helper()
	if os.Getenv("E2E_NODESIDE") != "1" || os.Getenv("E2E_DEVNODES") != "1" {
		t.Fatal("the DRA node side needs a private mount namespace with a tmpfs on /var/lib/kubelet and /dev/infiniband; run it with e2e/run")
	}
	k.use(t, ns)
	k.startClaimController(t)
	draKubeconfig = k.draDriverAccount(t)
	k.deviceClasses(t)
}

// draXE8640: the XE8640's hwloc export (three GPUs with an HCA under their switch, one without),
// claims allocated, prepared, the driver and the kubelet restarted with claims prepared.
func draXE8640(t *testing.T, ns string) {
	node := cl.group(t, ns, xe8640)[0]
	topo, gpus, hcas := cl.devicesOf(t, node)
	n := cl.draNode(t, node, gpus, hcas, xe8640.File)
	kubelet, devs := n.start(t, topo, len(gpus)+len(hcas))

	bound, _ := n.allocateInTurn(t, ns, "dra", []int64{2, 1, 1, 1, 1, 4}, devs, topo)

	prepared := map[string]*corev1.Pod{}
	for _, p := range bound {
		prepared[p.Name] = n.prepareAndCheck(t, kubelet, p, devs)
	}

	// Driver restart with claims prepared: the new process answers from its checkpoint.
	n.driver.Stop(10 * time.Second)
	n.driver = n.startDriver(t)
	if err := kubelet.WaitRegistered(draDriver, 90*time.Second); err != nil {
		t.Fatalf("after a driver restart: %v; see %s", err, n.driver.Log)
	}
	first := bound[0]
	n.unprepareAndCheck(t, kubelet, prepared[first.Name])

	// Kubelet restart: the new DRA manager reads its checkpoint, deletes the node's slices, and the
	// driver publishes them again when the kubelet registers it.
	if err := kubelet.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := kubelet.WaitRegistered(draDriver, 90*time.Second); err != nil {
		t.Fatalf("after a kubelet restart: %v; see %s", err, n.driver.Log)
	}
	n.waitSlices(t, len(gpus)+len(hcas))
	for _, p := range bound[1:] {
		n.unprepareAndCheck(t, kubelet, prepared[p.Name])
	}
}

// allocateInTurn creates a pod per claim size in turn (prefix-<i>-g<s>, a claim made from
// gpu-hca-<s>): each must be bound exactly when a switch still holds s free GPUs and s free HCAs (the
// devices the earlier pods' claims hold are taken), and pend with kube-scheduler's reason otherwise.
// It returns the bound pods and the devices their claims hold; none is allocated twice.
func (n *draNode) allocateInTurn(t *testing.T, ns, prefix string, sizes []int64, devs map[string]publishedDevice, topo *harness.Topology) ([]*corev1.Pod, map[string]bool) {
	t.Helper()
	var bound []*corev1.Pod
	taken := map[string]bool{}
	for i, s := range sizes {
		name := fmt.Sprintf("%s-%d-g%d", prefix, i, s)
		cl.createDraPod(t, ns, name, n.name, s)
		if !switchWithFree(devs, taken, int(s)) {
			cl.waitUnschedulable(t, ns, name)
			continue
		}
		pod := cl.waitBound(t, ns, name, 90*time.Second)
		for _, d := range n.checkAllocation(t, pod, s, devs, topo) {
			if taken[d] {
				t.Errorf("device %s allocated twice (again to pod %s)", d, name)
			}
			taken[d] = true
		}
		bound = append(bound, pod)
	}
	if len(bound) == 0 {
		t.Fatalf("no pod was bound on %s", n.name)
	}
	return bound, taken
}

// start starts the node's kubelet DRA side and the driver (both stopped when t ends), waits until the
// kubelet registered the driver and its ResourceSlices hold want devices, and checks their switch
// keys against the agent's tree.
func (n *draNode) start(t *testing.T, topo *harness.Topology, want int) (*dra.Kubelet, map[string]publishedDevice) {
	t.Helper()
	kubelet, err := dra.Start(cl.c.Kube, n.name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kubelet.Stop)
	n.driver = n.startDriver(t)
	if err := kubelet.WaitRegistered(draDriver, 90*time.Second); err != nil {
		t.Fatalf("%v; see %s", err, n.driver.Log)
	}
	devs := n.waitSlices(t, want)
	var tainted []string
	for _, d := range devs {
		if d.tainted {
			tainted = append(tainted, d.name)
		}
	}
	t.Logf("the kube-apiserver accepted %d devices of %s in ResourceSlices (tainted: %v); the kubelet's DRA manager registered the driver", len(devs), n.name, tainted)
	n.checkSwitchKeys(t, devs, topo)
	return kubelet, devs
}

// draNode is one node of the DRA scenario: its fake sysfs and procfs (GPU UUIDs included), its CDI
// directory holding NVIDIA's spec, and the driver's process.
type draNode struct {
	name   string
	sysfs  string
	cdiDir string
	hwloc  string            // the export the driver reads (GPU UUIDs filled in); "": its sysfs tree
	verbs  *fakeVerbs        // with no export: the stand-in libraries the driver reads through; nil: sysfs only
	args   []string          // the driver's further flags
	uuids  map[string]string // GPU id in the agent's tree (its PCI address, or its UUID on a Grace tray) -> UUID
	uverbs map[string]string // ibverbs name -> /dev/infiniband/uverbsN
	driver *harness.Proc
}

// withoutDevicePlugins removes nvidia.com/gpu and rdma/hca from the Node's status, as on a node whose
// GPUs and HCAs come from a DRA driver (one name is never served by both, KEP-5004): joint mode
// refuses to start while a device plugin publishes the node's GPUs.
func (k *cluster) withoutDevicePlugins(t *testing.T, node string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := k.c.Kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []corev1.ResourceName{"nvidia.com/gpu", "rdma/hca"} {
		delete(n.Status.Capacity, r)
		delete(n.Status.Allocatable, r)
	}
	if _, err := k.c.Kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("node %s without device-plugin resources: %v", node, err)
	}
}

// draNode writes the node's host files: with an hwloc export, fakeSysfs's tree and a copy of the
// export (GPU UUIDs filled in); without one (hwloc ""), the machine's tree is already at draSysfs
// (draTreeNode). Then a UUID per GPU in the NVIDIA driver's information file (a GPU the agent knows
// by UUID has its file from MachineTrees already), a character device per
// HCA's uverbs node and rdma_cm in the private /dev/infiniband (the CDI library takes a device node's
// type and numbers from the host file), and NVIDIA's CDI spec naming every GPU.
func (k *cluster) draNode(t *testing.T, node string, gpus, hcas []nodeside.Device, hwloc string) *draNode {
	t.Helper()
	n := &draNode{name: node, sysfs: draSysfs(node), cdiDir: filepath.Join(k.env.Dir, "cdi-"+node),
		uuids: map[string]string{}, uverbs: map[string]string{}}
	k.withoutDevicePlugins(t, node)
	// an earlier node's driver checkpoint is not this node's
	if err := os.RemoveAll(filepath.Join(dra.PluginsDir, draDriver)); err != nil {
		t.Fatal(err)
	}
	if hwloc != "" {
		if err := fakeSysfs(n.sysfs, hcas, gpus); err != nil {
			t.Fatal(err)
		}
	}
	var uuids []string
	for _, g := range gpus {
		if strings.HasPrefix(g.ID, "GPU-") {
			if err := nvidiaInfoNames(n.sysfs, g.ID); err != nil {
				t.Fatal(err)
			}
			n.uuids[g.ID] = g.ID
			uuids = append(uuids, g.ID)
			continue
		}
		u := "GPU-e2e00000-0000-4000-8000-" + fmt.Sprintf("%012s", strings.NewReplacer(":", "", ".", "").Replace(g.ID))
		n.uuids[g.ID] = u
		uuids = append(uuids, u)
		info := filepath.Join(n.sysfs, "proc", "driver", "nvidia", "gpus", g.ID, "information")
		text := fmt.Sprintf("Model: \t\t NVIDIA H100\nGPU UUID: \t %s\nBus Location: \t %s\n", u, g.ID)
		if err := os.WriteFile(info, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// fakeSysfs names HCA i's uverbs device uverbs<i>, a machine's tree as the kernel does
	// (sys/class/infiniband_verbs/uverbsN/ibdev); minor numbers as the kernel's ib_uverbs gives them.
	inTree := treeUverbs(n.sysfs)
	for i, h := range hcas {
		u, ok := inTree[h.ID]
		if !ok {
			u = i
		}
		n.uverbs[h.ID] = fmt.Sprintf("%s/uverbs%d", draDevDir, u)
		mknodChar(t, n.uverbs[h.ID], 231, uint32(192+u))
	}
	mknodChar(t, draDevDir+"/rdma_cm", 10, 58)
	if err := dra.WriteNvidiaSpec(n.cdiDir, uuids); err != nil {
		t.Fatal(err)
	}
	if hwloc == "" {
		return n
	}
	n.hwloc = filepath.Join(k.env.Dir, "hwloc-"+node+".xml")
	if err := withGpuUuids(k.env.Topology(hwloc), n.hwloc, n.uuids); err != nil {
		t.Fatal(err)
	}
	return n
}

// nvidiaInfoNames checks that one GPU's NVIDIA driver information file under root names uuid.
func nvidiaInfoNames(root, uuid string) error {
	files, _ := filepath.Glob(filepath.Join(root, "proc", "driver", "nvidia", "gpus", "*", "information"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), uuid) {
			return nil
		}
	}
	return fmt.Errorf("no NVIDIA driver information file under %s names GPU %s (%d files)", root, uuid, len(files))
}

// draSysfs is the node's host root (sysfs and procfs).
func draSysfs(node string) string { return filepath.Join(cl.env.Dir, "sysfs-"+node) }

// treeUverbs reads which uverbsN each ibverbs device has in a tree written as the kernel lays it
// out (sys/class/infiniband_verbs/uverbsN/ibdev); empty for fakeSysfs's, which has no such links.
func treeUverbs(root string) map[string]int {
	out := map[string]int{}
	dirs, _ := filepath.Glob(filepath.Join(root, "sys", "class", "infiniband_verbs", "uverbs*"))
	for _, d := range dirs {
		ib, err := os.ReadFile(filepath.Join(d, "ibdev"))
		var n int
		if _, perr := fmt.Sscanf(filepath.Base(d), "uverbs%d", &n); err == nil && perr == nil {
			out[strings.TrimSpace(string(ib))] = n
		}
	}
	return out
}

// scrubbedUUID is the GPU UUID every GPU of test-fixtures' hwloc exports carries.
const scrubbedUUID = "GPU-00000000-0000-0000-0000-000000000000"

// withGpuUuids copies the hwloc export src to dst with each GPU's scrubbed NVIDIAUUID replaced by
// uuids[its PCI address], as an export of the node would carry them: the driver names GPUs, and
// NVIDIA's CDI spec knows them, by UUID. A GPU's NVML object is nested in its PCI device object, before
// the next pci_busid. Every HCA's port 1 is made ACTIVE (Port1State 4), as fakeSysfs shows it: the
// node is cabled (the XE8640 export was taken with three of its four ports DOWN, which the driver
// publishes tainted).
func withGpuUuids(src, dst string, uuids map[string]string) error {
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	parts := strings.Split(string(raw), `pci_busid="`)
	for i := 1; i < len(parts); i++ {
		bus, _, _ := strings.Cut(parts[i], `"`)
		if u, ok := uuids[bus]; ok {
			parts[i] = strings.Replace(parts[i], scrubbedUUID, u, 1)
		}
	}
	out := portState.ReplaceAllString(strings.Join(parts, `pci_busid="`), `${1}4"`)
	if strings.Count(out, scrubbedUUID) != 0 {
		return fmt.Errorf("%s: %d GPUs left with the scrubbed UUID", src, strings.Count(out, scrubbedUUID))
	}
	return os.WriteFile(dst, []byte(out), 0o644)
}

func mknodChar(t *testing.T, path string, major, minor uint32) {
	t.Helper()
	_ = os.Remove(path)
	if err := unix.Mknod(path, unix.S_IFCHR|0o666, int(unix.Mkdev(major, minor))); err != nil {
		t.Fatalf("mknod %s: %v", path, err)
	}
}

// startDriver runs Tandem's DRA driver jar in joint mode for the node (its hwloc export, its sysfs
// tree through the stand-in libraries, or its sysfs tree only), stopped when t ends.
func (n *draNode) startDriver(t *testing.T) *harness.Proc {
	t.Helper()
	ops := harness.FreePort()
	args := []string{"--node-name", n.name, "--kubeconfig", draKubeconfig, "--joint", "--sysfs-root", n.sysfs}
	if n.hwloc != "" {
		args = append(args, "--hwloc-xml", n.hwloc)
	} else if n.verbs == nil {
		args = append(args, "--sysfs-only")
	}
	args = append(args, n.args...)
	args = append(args, "--plugin-registry-dir", dra.RegistryDir, "--plugin-dir", filepath.Join(dra.PluginsDir, draDriver),
		"--cdi-dir", n.cdiDir, "--ops-port", fmt.Sprint(ops))
	argv := append([]string{cl.env.Java}, javaArgsWith("96m", n.verbs.jvm(), cl.env.Jar("dra-driver"), args...)...)
	p, err := harness.Start(cl.env.Logs(), "dra-driver-"+n.name, n.verbs.env(), argv...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(10 * time.Second) })
	return p
}

// draKubeconfig is the driver's identity in TestDRA: a token of its ServiceAccount (draDriverAccount).
var draKubeconfig string

// draDriverAccount installs the driver's ServiceAccount, ClusterRole and binding from
// manifests/overlays/dra (removed when t ends) and returns a kubeconfig with a token of that account,
// so the driver runs with exactly the rights the install gives it: a call the role does not grant
// fails the scenario.
func (k *cluster) draDriverAccount(t *testing.T) string {
	t.Helper()
	rbac := k.env.Path("manifests", "overlays", "dra", "rbac-dra-driver.yaml")
	if _, err := k.env.Kubectl(nil, "apply", "--server-side", "--field-manager=tandem-e2e", "-f", rbac); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = k.env.Kubectl(nil, "delete", "--ignore-not-found", "-f", rbac) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kc, err := k.c.ServiceAccountKubeconfig(ctx, k.env, "tandem-system", "tandem-dra-driver")
	if err != nil {
		t.Fatal(err)
	}
	return kc
}

// startClaimController runs kube-controller-manager with the controllers DRA pods need: the
// resourceclaim controller (claims from a pod's templates, reservations released) and the garbage
// collector (a pod's claims deleted with it). It stops when t ends.
func (k *cluster) startClaimController(t *testing.T) {
	t.Helper()
	cm, err := harness.Start(k.env.Logs(), "kube-controller-manager-dra", nil,
		filepath.Join(k.env.Bin, "kube-controller-manager"), "--kubeconfig", k.env.Kubeconfig,
		"--controllers=resourceclaim-controller,garbagecollector", "--leader-elect=false", "--secure-port=0", "--v=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !cm.Running() {
			t.Errorf("kube-controller-manager exited early; see %s", cm.Log)
		}
		cm.Stop(5 * time.Second)
	})
}

// publishedDevice is a device of the node's ResourceSlices with the attributes the checks read.
type publishedDevice struct {
	name, kind, pcieSwitch string
	uuid, ibDevice, pciBus string
	dataDirect             string // tandem.dev/dataDirect: the HCA's Data Direct function, if any
	tainted                bool   // the API server kept a taint on it (DRADeviceTaints)
}

// waitSlices waits until the driver's ResourceSlices of the node hold want devices (each created
// through the API server's validation) and returns them by device name.
func (n *draNode) waitSlices(t *testing.T, want int) map[string]publishedDevice {
	t.Helper()
	var devs map[string]publishedDevice
	eventually(t, 90*time.Second, "the driver's ResourceSlices of "+n.name, func(ctx context.Context) error {
		list, err := cl.c.Kube.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{
			FieldSelector: resourcev1.ResourceSliceSelectorNodeName + "=" + n.name + "," + resourcev1.ResourceSliceSelectorDriver + "=" + draDriver})
		if err != nil {
			return err
		}
		devs = map[string]publishedDevice{}
		for _, s := range list.Items {
			if s.Spec.Pool.Name != n.name {
				return harness.Permanent(fmt.Errorf("slice %s is in pool %q, want the node's name", s.Name, s.Spec.Pool.Name))
			}
			for _, d := range s.Spec.Devices {
				devs[d.Name] = publishedDevice{name: d.Name, kind: str(d, "tandem.dev/kind"), pcieSwitch: str(d, string(switchKey)),
					uuid: str(d, "tandem.dev/uuid"), ibDevice: str(d, "tandem.dev/ibDevice"), pciBus: str(d, "resource.kubernetes.io/pciBusID"),
					dataDirect: str(d, "tandem.dev/dataDirect"), tainted: len(d.Taints) > 0}
			}
		}
		if len(devs) != want {
			return fmt.Errorf("%d slices with %d devices, want %d devices (driver running: %v)", len(list.Items), len(devs), want, n.driver.Running())
		}
		return nil
	})
	return devs
}

func str(d resourcev1.Device, name string) string {
	if v, ok := d.Attributes[resourcev1.QualifiedName(name)]; ok && v.StringValue != nil {
		return *v.StringValue
	}
	return ""
}

// checkSwitchKeys holds the published switch key to the agent's tree: two devices share
// tandem.dev/pcieSwitch exactly when they are PXB or closer.
func (n *draNode) checkSwitchKeys(t *testing.T, devs map[string]publishedDevice, topo *harness.Topology) {
	t.Helper()
	for _, a := range devs {
		for _, b := range devs {
			if a.kind != "gpu" || b.kind != "hca" {
				continue
			}
			near, _, err := topo.Aligned([]string{n.treeID(a)}, []string{n.treeID(b)}, harness.PXB)
			if err != nil {
				t.Fatal(err)
			}
			same := a.pcieSwitch != "" && a.pcieSwitch == b.pcieSwitch
			if same != near {
				t.Errorf("GPU %s and HCA %s: same pcieSwitch %v (%q, %q), but PXB or closer in the agent's tree: %v",
					a.name, b.name, same, a.pcieSwitch, b.pcieSwitch, near)
			}
		}
	}
}

// treeID is the device's id in the agent's NodeTopology (a GPU's PCI address, an HCA's ibverbs name).
func (n *draNode) treeID(d publishedDevice) string {
	if d.kind == "hca" {
		return d.ibDevice
	}
	for pci, u := range n.uuids {
		if u == d.uuid {
			return pci
		}
	}
	return d.pciBus
}

// switchWithFree says whether a switch key holds s GPUs and s HCAs neither taken nor tainted (the
// scheduler's allocator skips a device whose taints the claim does not tolerate).
func switchWithFree(devs map[string]publishedDevice, taken map[string]bool, s int) bool {
	free := map[string]map[string]int{}
	for _, d := range devs {
		if taken[d.name] || d.tainted || d.pcieSwitch == "" {
			continue
		}
		if free[d.pcieSwitch] == nil {
			free[d.pcieSwitch] = map[string]int{}
		}
		free[d.pcieSwitch][d.kind]++
	}
	for _, c := range free {
		if c["gpu"] >= s && c["hca"] >= s {
			return true
		}
	}
	return false
}

// deviceClasses creates tandem-gpu and tandem-hca, selecting the driver's devices by kind (removed
// when t ends: DeviceClasses are cluster-wide).
func (k *cluster) deviceClasses(t *testing.T) {
	t.Helper()
	for _, kind := range []string{"gpu", "hca"} {
		dc := &resourcev1.DeviceClass{
			ObjectMeta: metav1.ObjectMeta{Name: "tandem-" + kind},
			Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
				Expression: fmt.Sprintf(`device.driver == %q && device.attributes[%q].kind == %q`, draDriver, draDriver, kind)}}}},
		}
		if _, err := k.c.Kube.ResourceV1().DeviceClasses().Create(context.Background(), dc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = k.c.Kube.ResourceV1().DeviceClasses().Delete(context.Background(), dc.Name, metav1.DeleteOptions{})
		})
	}
}

// claimTemplate creates ResourceClaimTemplate "gpu-hca-<s>": s GPUs and s HCAs, all under one
// tandem.dev/pcieSwitch.
func (k *cluster) claimTemplate(t *testing.T, ns string, s int64) {
	t.Helper()
	req := func(kind string) resourcev1.DeviceRequest {
		return resourcev1.DeviceRequest{Name: kind, Exactly: &resourcev1.ExactDeviceRequest{
			DeviceClassName: "tandem-" + kind, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: s}}
	}
	key := switchKey
	tmpl := &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("gpu-hca-%d", s), Namespace: ns},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests:    []resourcev1.DeviceRequest{req("gpu"), req("hca")},
			Constraints: []resourcev1.DeviceConstraint{{Requests: []string{"gpu", "hca"}, MatchAttribute: &key}},
		}}},
	}
	if _, err := k.c.Kube.ResourceV1().ResourceClaimTemplates(ns).Create(context.Background(), tmpl, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// createDraPod creates a pod on node whose one container uses a claim made from gpu-hca-<s>; it is
// deleted when t ends.
func (k *cluster) createDraPod(t *testing.T, ns, name, node string, s int64) {
	t.Helper()
	tmpl := fmt.Sprintf("gpu-hca-%d", s)
	k.createClaimPod(t, ns, name, node, corev1.PodResourceClaim{Name: draPodClaim, ResourceClaimTemplateName: &tmpl})
}

// createClaimPod creates a pod on node whose one container uses the claim; it is deleted when t ends.
func (k *cluster) createClaimPod(t *testing.T, ns, name, node string, claim corev1.PodResourceClaim) {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{
			SchedulerName:  k.schedName,
			NodeSelector:   map[string]string{"kubernetes.io/hostname": node},
			ResourceClaims: []corev1.PodResourceClaim{claim},
			Containers: []corev1.Container{{Name: draContainer, Image: "registry.invalid/tandem-e2e:none",
				Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: claim.Name}}}}},
		},
	}
	if _, err := k.c.Kube.CoreV1().Pods(ns).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.forceDelete(t, ns, name) })
}

// waitUnschedulable waits until kube-scheduler says in the pod's PodScheduled condition that its
// claim cannot be allocated.
func (k *cluster) waitUnschedulable(t *testing.T, ns, name string) {
	t.Helper()
	eventually(t, 90*time.Second, fmt.Sprintf("pod %s/%s unschedulable with %q", ns, name, cannotAlloc), func(ctx context.Context) error {
		p, err := k.c.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Spec.NodeName != "" {
			return harness.Permanent(fmt.Errorf("bound to %s, but no switch has that many free GPUs and HCAs", p.Spec.NodeName))
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable &&
				strings.Contains(c.Message, cannotAlloc) {
				t.Logf("pod %s pending as expected: %s", name, c.Message)
				return nil
			}
		}
		return fmt.Errorf("conditions %+v", p.Status.Conditions)
	})
}

// claimOf reads the pod's claim: the one it names, or the one made from its template (whose name is
// in the pod's status).
func claimOf(t *testing.T, pod *corev1.Pod) *resourcev1.ResourceClaim {
	t.Helper()
	name := ""
	for _, c := range pod.Spec.ResourceClaims {
		if c.Name == draPodClaim && c.ResourceClaimName != nil {
			name = *c.ResourceClaimName
		}
	}
	for _, s := range pod.Status.ResourceClaimStatuses {
		if s.Name == draPodClaim && s.ResourceClaimName != nil {
			name = *s.ResourceClaimName
		}
	}
	if name != "" {
		c, err := cl.c.Kube.ResourceV1().ResourceClaims(pod.Namespace).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	t.Fatalf("pod %s has no claim in its status: %+v", pod.Name, pod.Status.ResourceClaimStatuses)
	return nil
}

// checkAllocation checks the bound pod's claim: allocated for this node, s GPUs and s HCAs of the
// driver, every GPU with a granted HCA under its switch and every HCA serving a granted GPU (by the
// published key and by the agent's tree), reserved for the pod. It returns the devices.
func (n *draNode) checkAllocation(t *testing.T, pod *corev1.Pod, s int64, devs map[string]publishedDevice, topo *harness.Topology) []string {
	t.Helper()
	c := claimOf(t, pod)
	if c.Status.Allocation == nil {
		t.Fatalf("pod %s bound but its claim %s is not allocated", pod.Name, c.Name)
	}
	reserved := false
	for _, r := range c.Status.ReservedFor {
		reserved = reserved || r.UID == pod.UID
	}
	if !reserved {
		t.Errorf("claim %s is not reserved for pod %s: %+v", c.Name, pod.Name, c.Status.ReservedFor)
	}
	var names []string
	byKind := map[string][]publishedDevice{}
	for _, r := range c.Status.Allocation.Devices.Results {
		if r.Driver != draDriver || r.Pool != n.name {
			t.Errorf("claim %s: result %+v is not of driver %s and pool %s", c.Name, r, draDriver, n.name)
			continue
		}
		d, ok := devs[r.Device]
		if !ok || d.kind != r.Request || d.tainted {
			t.Errorf("claim %s: request %s got device %s (published: %v, kind %q, tainted %v)", c.Name, r.Request, r.Device, ok, d.kind, d.tainted)
		}
		byKind[d.kind] = append(byKind[d.kind], d)
		names = append(names, r.Device)
	}
	if int64(len(byKind["gpu"])) != s || int64(len(byKind["hca"])) != s {
		t.Fatalf("claim %s: %d GPUs and %d HCAs allocated, asked %d of each", c.Name, len(byKind["gpu"]), len(byKind["hca"]), s)
	}
	pairs := func(from, to []publishedDevice) {
		for _, a := range from {
			ok := false
			for _, b := range to {
				near, _, err := topo.Aligned([]string{n.treeID(a)}, []string{n.treeID(b)}, harness.PXB)
				if err != nil {
					t.Fatal(err)
				}
				ok = ok || (a.pcieSwitch == b.pcieSwitch && near)
			}
			if !ok {
				t.Errorf("claim %s: %s %s has no granted %s under its switch %s", c.Name, a.kind, a.name, map[string]string{"gpu": "HCA", "hca": "GPU"}[a.kind], a.pcieSwitch)
			}
		}
	}
	pairs(byKind["gpu"], byKind["hca"])
	pairs(byKind["hca"], byKind["gpu"])
	t.Logf("pod %s: claim %s allocated %v under switch %s", pod.Name, c.Name, names, byKind["gpu"][0].pcieSwitch)
	return names
}

var portState = regexp.MustCompile(`(name="Port1State" value=")[0-9]+"`)

var uverbsPath = regexp.MustCompile(`^/dev/infiniband/(uverbs[0-9]+|rdma_cm)$`)

// prepareAndCheck has the kubelet's DRA manager prepare the pod's claim through the driver, resolves
// the CDI ids it returns with the CDI library, and checks the container's OCI spec: exactly the
// granted HCAs' uverbs nodes and rdma_cm, NCCL_IB_HCA naming exactly the granted HCAs, and exactly the
// granted GPUs from NVIDIA's spec. It returns the pod as the kubelet admitted it.
func (n *draNode) prepareAndCheck(t *testing.T, kubelet *dra.Kubelet, bound *corev1.Pod, devs map[string]publishedDevice) *corev1.Pod {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod, ids, err := kubelet.Prepare(ctx, bound.Namespace, bound.Name)
	if err != nil {
		t.Fatalf("%v; see %s", err, n.driver.Log)
	}
	c := claimOf(t, pod)
	var wantDevs, wantHcas, wantGpus, wantIDs []string
	for _, r := range c.Status.Allocation.Devices.Results {
		d := devs[r.Device]
		switch d.kind {
		case "hca":
			wantDevs = append(wantDevs, n.uverbs[d.ibDevice])
			wantHcas = append(wantHcas, d.ibDevice)
			wantIDs = append(wantIDs, fmt.Sprintf("tandem.dev/hca=%s-%s", c.UID, d.name))
		case "gpu":
			wantGpus = append(wantGpus, d.uuid)
			wantIDs = append(wantIDs, "nvidia.com/gpu="+d.uuid)
		}
	}
	wantDevs = append(wantDevs, draDevDir+"/rdma_cm")
	if !sameSet(ids[draContainer], wantIDs) {
		t.Errorf("pod %s: the kubelet got CDI ids %v, want %v", pod.Name, ids[draContainer], wantIDs)
	}
	spec, err := dra.ContainerSpec([]string{n.cdiDir}, ids[draContainer])
	if err != nil {
		t.Fatal(err)
	}
	var gotDevs []string
	for _, d := range spec.Linux.Devices {
		if !uverbsPath.MatchString(d.Path) || d.Type != "c" {
			t.Errorf("pod %s: unexpected device node %+v in the OCI spec", pod.Name, d)
		}
		gotDevs = append(gotDevs, d.Path)
	}
	if !sameSet(gotDevs, wantDevs) {
		t.Errorf("pod %s: OCI spec device nodes %v, want %v", pod.Name, gotDevs, wantDevs)
	}
	env := map[string]string{}
	var gotGpus []string
	for _, e := range spec.Process.Env {
		k, v, _ := strings.Cut(e, "=")
		env[k] = v
		if strings.HasPrefix(k, dra.GPUEnvPrefix) {
			gotGpus = append(gotGpus, v)
		}
	}
	if got := strings.Split(strings.TrimPrefix(env["NCCL_IB_HCA"], "="), ","); !sameSet(got, wantHcas) {
		t.Errorf("pod %s: NCCL_IB_HCA=%q, want exactly %v", pod.Name, env["NCCL_IB_HCA"], wantHcas)
	}
	if !sameSet(gotGpus, wantGpus) {
		t.Errorf("pod %s: GPUs in the OCI spec %v, want %v", pod.Name, gotGpus, wantGpus)
	}
	sort.Strings(gotDevs)
	t.Logf("pod %s prepared: CDI ids %v; OCI spec devices %v, NCCL_IB_HCA=%s", pod.Name, ids[draContainer], gotDevs, env["NCCL_IB_HCA"])
	if _, err := os.Stat(n.specFile(c)); err != nil {
		t.Errorf("pod %s: the claim's CDI spec: %v", pod.Name, err)
	}
	return pod
}

// specFile is the CDI spec the driver writes for the claim (docs/dra.md, CDI).
func (n *draNode) specFile(c *resourcev1.ResourceClaim) string {
	return filepath.Join(n.cdiDir, fmt.Sprintf("tandem.dev-hca_%s.json", c.UID))
}

// unprepareAndCheck has the kubelet's DRA manager unprepare the pod's claim and checks its CDI spec is gone.
func (n *draNode) unprepareAndCheck(t *testing.T, kubelet *dra.Kubelet, pod *corev1.Pod) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := claimOf(t, pod)
	if err := kubelet.Unprepare(ctx, pod); err != nil {
		t.Fatalf("%v; see %s", err, n.driver.Log)
	}
	if _, err := os.Stat(n.specFile(c)); !os.IsNotExist(err) {
		t.Errorf("pod %s: the claim's CDI spec %s is still there after Unprepare (%v)", pod.Name, n.specFile(c), err)
	}
}
