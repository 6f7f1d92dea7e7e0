package check

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/api/resource"
)

func mustRender(t *testing.T, rel string) []*resource.Resource {
	t.Helper()
	rs, err := Render(rel)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func expectInventory(t *testing.T, rel string, want []string) []*resource.Resource {
	t.Helper()
	rs := mustRender(t, rel)
	sort.Strings(want)
	if got := Inventory(rs); !reflect.DeepEqual(got, want) {
		t.Fatalf("kustomize build manifests/%s:\n got  %q\n want %q", rel, got, want)
	}
	for _, r := range rs {
		if _, err := DecodeStrict(r); err != nil {
			t.Errorf("manifests/%s: %v", rel, err)
		}
	}
	return rs
}

// The install (manifests/ = CRD + base) has each kind once per component.
func TestInstallHasEachKindOncePerComponent(t *testing.T) {
	expectInventory(t, ".", []string{
		"tandem-system Namespace",
		"nodetopologies.tandem.dev CustomResourceDefinition",
		"tandem-node-topology-agent ServiceAccount",
		"tandem-node-topology-agent ClusterRole",
		"tandem-node-topology-agent ClusterRoleBinding",
		"tandem-node-topology-agent DaemonSet",
		"tandem-node-topology-agent ValidatingAdmissionPolicy",
		"tandem-node-topology-agent ValidatingAdmissionPolicyBinding",
		"tandem-device-plugin ServiceAccount",
		"tandem-device-plugin ClusterRole",
		"tandem-device-plugin ClusterRoleBinding",
		"tandem-device-plugin ConfigMap",
		"tandem-device-plugin DaemonSet",
		"tandem-scheduler-extender ServiceAccount",
		"tandem-scheduler-extender ClusterRole",
		"tandem-scheduler-extender ClusterRoleBinding",
		"tandem-scheduler-extender Role",
		"tandem-scheduler-extender RoleBinding",
		"tandem-scheduler-extender Deployment",
		"tandem-scheduler-extender Service",
		"tandem-scheduler-extender PodDisruptionBudget",
		"tandem-scheduler-extender NetworkPolicy",
		"tandem-certificates ServiceAccount",
		"tandem-certificates Role",
		"tandem-certificates RoleBinding",
		"tandem-certificates Job",
	})
}

// The second scheduler: its own ServiceAccount, the built-in scheduler roles bound once each, its
// Lease role, the authentication reader, its generated configuration and its Deployment.
func TestSecondSchedulerOverlay(t *testing.T) {
	expectInventory(t, "scheduler/second-scheduler", []string{
		"tandem-scheduler ServiceAccount",
		"tandem-scheduler ClusterRoleBinding",
		"tandem-scheduler ClusterRoleBinding",
		"tandem-scheduler Role",
		"tandem-scheduler RoleBinding",
		"tandem-scheduler RoleBinding",
		"tandem-scheduler ConfigMap",
		"tandem-scheduler Deployment",
	})
}

func TestDefaultSchedulerPatchOverlay(t *testing.T) {
	expectInventory(t, "scheduler/default-scheduler-patch", []string{
		"tandem-scheduler-extender Service",
		"tandem-scheduler-extender NetworkPolicy",
	})
}

// The eRDMA overlay is the base with a device-plugin configuration selecting Alibaba's devices.
func TestErdmaOverlaySelectsAlibabaDevices(t *testing.T) {
	rs := mustRender(t, "examples/erdma")
	base := mustRender(t, "base")
	if len(rs) != len(base) {
		t.Fatalf("examples/erdma renders %d objects, base %d", len(rs), len(base))
	}
	cm := find(t, rs, "ConfigMap", "tandem-device-plugin-config")
	data, _ := cm.GetDataMap()["config.json"]
	for _, want := range []string{`"mode": "hca"`, `"vendorIds": ["1ded"]`, `"linkLayers": ["Ethernet"]`} {
		if !strings.Contains(data, want) {
			t.Errorf("eRDMA config.json %q lacks %s", data, want)
		}
	}
}

// Every container in the install and in the DRA installs: not privileged, memory limit and requests
// set, no privilege escalation; the DaemonSets mount exactly the host paths the docs name, read-only
// where they can (the DRA driver's: TestDraDriverPod).
func TestWorkloadsAreUnprivilegedAndBounded(t *testing.T) {
	for _, rel := range append([]string{"."}, draOverlays...) {
		unprivilegedAndBounded(t, rel)
	}
	rs := mustRender(t, ".")
	agent := hostPaths(t, find(t, rs, "DaemonSet", "tandem-node-topology-agent"))
	want := map[string]bool{"/sys": true, "/var/lib/kubelet/pod-resources": true}
	if !reflect.DeepEqual(agent, want) {
		t.Errorf("agent host paths (path -> read-only) = %v, want %v", agent, want)
	}
	plugin := hostPaths(t, find(t, rs, "DaemonSet", "tandem-device-plugin"))
	want = map[string]bool{"/sys": true, "/var/lib/kubelet/pod-resources": true, "/var/lib/kubelet/device-plugins": false,
		"/var/run/k8s.cni.cncf.io/devinfo/dp": false}
	if !reflect.DeepEqual(plugin, want) {
		t.Errorf("device-plugin host paths (path -> read-only) = %v, want %v", plugin, want)
	}
}

func unprivilegedAndBounded(t *testing.T, rel string) {
	t.Helper()
	for _, r := range mustRender(t, rel) {
		var spec *corev1.PodSpec
		switch obj, _ := DecodeStrict(r); o := obj.(type) {
		case *appsv1.DaemonSet:
			spec = &o.Spec.Template.Spec
		case *appsv1.Deployment:
			spec = &o.Spec.Template.Spec
		case *batchv1.Job:
			spec = &o.Spec.Template.Spec
		default:
			continue
		}
		for _, c := range spec.Containers {
			sc := c.SecurityContext
			if sc == nil || (sc.Privileged != nil && *sc.Privileged) || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				t.Errorf("manifests/%s %s/%s: privileged or may escalate", rel, r.GetName(), c.Name)
			}
			if c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
				t.Errorf("manifests/%s %s/%s: needs cpu/memory requests and a memory limit", rel, r.GetName(), c.Name)
			}
		}
	}
}

// The examples decode into typed objects, use the second scheduler, ask for GPUs and HCAs
// together and may lock memory (IPC_LOCK) for RDMA registration.
func TestExamplesRequestAlignedDevices(t *testing.T) {
	rs := mustRender(t, "examples")
	pods := 0
	for _, r := range rs {
		obj, err := DecodeStrict(r)
		if err != nil {
			t.Fatal(err)
		}
		var spec *corev1.PodSpec
		switch o := obj.(type) {
		case *corev1.Pod:
			spec = &o.Spec
		case *batchv1.Job:
			spec = &o.Spec.Template.Spec
		default:
			continue
		}
		pods++
		if spec.SchedulerName != "tandem-scheduler" {
			t.Errorf("%s: schedulerName %q", r.GetName(), spec.SchedulerName)
		}
		c := spec.Containers[0]
		gpu, hca := c.Resources.Limits["nvidia.com/gpu"], c.Resources.Limits["rdma/hca"]
		if gpu.IsZero() || hca.IsZero() {
			t.Errorf("%s: wants both nvidia.com/gpu and rdma/hca limits, has %v", r.GetName(), c.Resources.Limits)
		}
		if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil || len(c.SecurityContext.Capabilities.Add) != 1 || c.SecurityContext.Capabilities.Add[0] != "IPC_LOCK" {
			t.Errorf("%s: wants exactly capability IPC_LOCK", r.GetName())
		}
	}
	if pods != 5 {
		t.Errorf("examples hold %d pods/jobs, want 5 (2 single pods, 1 job, ib_read_bw server and client)", pods)
	}
}

func find(t *testing.T, rs []*resource.Resource, kind, name string) *resource.Resource {
	t.Helper()
	for _, r := range rs {
		if r.GetKind() == kind && (r.GetName() == name || strings.HasPrefix(r.GetName(), name+"-")) {
			return r
		}
	}
	t.Fatalf("no %s %s", kind, name)
	return nil
}

func hostPaths(t *testing.T, r *resource.Resource) map[string]bool {
	obj, err := DecodeStrict(r)
	if err != nil {
		t.Fatal(err)
	}
	spec := obj.(*appsv1.DaemonSet).Spec.Template.Spec
	byVolume := map[string]string{}
	for _, v := range spec.Volumes {
		if v.HostPath != nil {
			byVolume[v.Name] = v.HostPath.Path
		}
	}
	out := map[string]bool{}
	for _, c := range spec.Containers {
		for _, m := range c.VolumeMounts {
			if p, ok := byVolume[m.Name]; ok {
				if m.MountPath != p {
					t.Errorf("%s: host path %s mounted at %s", r.GetName(), p, m.MountPath)
				}
				out[p] = m.ReadOnly
			}
		}
	}
	return out
}
