package check

import (
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
)

// wantExtender is the entry both wirings share, in kube-scheduler's internal form after defaulting: mutual TLS, the serving certificate checked for the Service's
// DNS name against the CA, kube-scheduler's client certificate from dir.
func wantExtender(urlPrefix, dir string) config.Extender {
	return config.Extender{
		URLPrefix:      urlPrefix,
		FilterVerb:     "filter",
		PreemptVerb:    "preempt",
		PrioritizeVerb: "prioritize",
		BindVerb:       "bind",
		Weight:         5,
		EnableHTTPS:    true,
		TLSConfig: &config.ExtenderTLSConfig{
			ServerName: "tandem-scheduler-extender.tandem-system.svc",
			CertFile:   dir + "/tls.crt",
			KeyFile:    dir + "/tls.key",
			CAFile:     dir + "/ca.crt",
		},
		HTTPTimeout:      metav1Duration(10 * time.Second),
		NodeCacheCapable: true,
		ManagedResources: []config.ExtenderManagedResource{
			{Name: "nvidia.com/gpu", IgnoredByScheduler: false},
			{Name: "rdma/hca", IgnoredByScheduler: false},
		},
		Ignorable: false,
	}
}

func readManifest(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ManifestsDir(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The second scheduler's configuration (as kustomize renders it into its ConfigMap) is accepted by
// kube-scheduler's strict decoder and validation, names the profile tandem-scheduler, and points
// its one extender at the extender Service's DNS name and port.
func TestSecondSchedulerConfigurationIsValid(t *testing.T) {
	rs := mustRender(t, "scheduler/second-scheduler")
	cm := find(t, rs, "ConfigMap", "tandem-scheduler-config")
	cfg, err := LoadSchedulerConfig([]byte(cm.GetDataMap()["kube-scheduler-config.yaml"]))
	if err != nil {
		t.Fatalf("kube-scheduler rejects second-scheduler/kube-scheduler-config.yaml: %v", err)
	}
	if len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != "tandem-scheduler" {
		t.Errorf("profiles %+v, want one named tandem-scheduler", cfg.Profiles)
	}
	if cfg.LeaderElection.ResourceNamespace != "tandem-system" || cfg.LeaderElection.ResourceName != "tandem-scheduler" {
		t.Errorf("leader election Lease %s/%s, want tandem-system/tandem-scheduler (the Role grants that one)",
			cfg.LeaderElection.ResourceNamespace, cfg.LeaderElection.ResourceName)
	}
	svc := extenderService(t)
	want := wantExtender("https://"+svc.Name+"."+svc.Namespace+".svc:"+strconv.Itoa(int(svc.Spec.Ports[0].Port))+"/scheduler", "/etc/tandem-scheduler-tls")
	if len(cfg.Extenders) != 1 || !reflect.DeepEqual(cfg.Extenders[0], want) {
		t.Errorf("extenders = %+v\nwant [%+v]", cfg.Extenders, want)
	}
	dep, _ := DecodeStrict(find(t, rs, "Deployment", "tandem-scheduler"))
	c := dep.(*appsv1.Deployment).Spec.Template.Spec.Containers[0]
	if c.Image != "registry.k8s.io/kube-scheduler:"+pinnedKubernetes(t) {
		t.Errorf("kube-scheduler image %s does not match e2e/go.mod's k8s.io/kubernetes %s", c.Image, pinnedKubernetes(t))
	}
}

// The entry for an existing default scheduler: valid for kube-scheduler, identical to the second
// scheduler's except the URL, whose address is the fixed ClusterIP of the static Service.
func TestDefaultSchedulerPatchIsValid(t *testing.T) {
	cfg, err := LoadSchedulerConfig(readManifest(t, "scheduler/default-scheduler-patch/extender.yaml"))
	if err != nil {
		t.Fatalf("kube-scheduler rejects default-scheduler-patch/extender.yaml: %v", err)
	}
	obj, _ := DecodeStrict(find(t, mustRender(t, "scheduler/default-scheduler-patch"), "Service", "tandem-scheduler-extender-static"))
	static := obj.(*corev1.Service)
	if static.Spec.ClusterIP == "" || net.ParseIP(static.Spec.ClusterIP) == nil {
		t.Fatalf("static Service has no fixed clusterIP: %q", static.Spec.ClusterIP)
	}
	want := wantExtender("https://"+static.Spec.ClusterIP+":"+strconv.Itoa(int(static.Spec.Ports[0].Port))+"/scheduler", "/etc/kubernetes/tandem")
	if len(cfg.Extenders) != 1 || !reflect.DeepEqual(cfg.Extenders[0], want) {
		t.Errorf("extenders = %+v\nwant [%+v]", cfg.Extenders, want)
	}
	if !reflect.DeepEqual(static.Spec.Selector, extenderService(t).Spec.Selector) {
		t.Errorf("static Service selects %v, the extender Service %v", static.Spec.Selector, extenderService(t).Spec.Selector)
	}
}

// Each Service port reaches the port the extender listens on: `verbs` its --port (8888, the one
// kube-scheduler's urlPrefix names), `inspection` its --inspection-port (8889, the probes' port).
func TestExtenderServiceReachesListenPort(t *testing.T) {
	svc := extenderService(t)
	obj, _ := DecodeStrict(find(t, mustRender(t, "base"), "Deployment", "tandem-scheduler-extender"))
	c := obj.(*appsv1.Deployment).Spec.Template.Spec.Containers[0]
	flags := map[string]string{"verbs": "--port=", "inspection": "--inspection-port="}
	defaults := map[string]int32{"verbs": 8888, "inspection": 8889}
	if len(svc.Spec.Ports) != len(flags) || len(c.Ports) != len(flags) {
		t.Fatalf("Service ports %+v, container ports %+v: want exactly verbs and inspection", svc.Spec.Ports, c.Ports)
	}
	for _, sp := range svc.Spec.Ports {
		flag, ok := flags[sp.Name]
		if !ok || sp.TargetPort.StrVal != sp.Name {
			t.Errorf("Service port %+v: want the names verbs or inspection, targeting the container port of that name", sp)
			continue
		}
		var cp *corev1.ContainerPort
		for i := range c.Ports {
			if c.Ports[i].Name == sp.Name {
				cp = &c.Ports[i]
			}
		}
		if cp == nil || cp.ContainerPort != sp.Port || sp.Port != defaults[sp.Name] {
			t.Errorf("Service port %s %d, container port %+v: want %d, the extender's documented default", sp.Name, sp.Port, cp, defaults[sp.Name])
			continue
		}
		listen := flag + strconv.Itoa(int(cp.ContainerPort))
		found := false
		for _, a := range c.Args {
			found = found || a == listen
		}
		if !found {
			t.Errorf("extender args %v: want %s", c.Args, listen)
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Port.StrVal != "inspection" {
			t.Errorf("probe %+v: want an httpGet on the inspection port (the verbs port asks for a client certificate)", p)
		}
	}
}

func extenderService(t *testing.T) *corev1.Service {
	t.Helper()
	obj, err := DecodeStrict(find(t, mustRender(t, "base"), "Service", "tandem-scheduler-extender"))
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*corev1.Service)
}

// pinnedKubernetes reads the Kubernetes release the end-to-end harness builds (e2e/go.mod).
func pinnedKubernetes(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ManifestsDir(), "..", "e2e", "go.mod"))
	if err != nil {
		t.Fatalf("the kube-scheduler image must match the e2e harness's Kubernetes: %v", err)
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?k8s\.io/kubernetes\s+(v\d+\.\d+\.\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("e2e/go.mod does not require k8s.io/kubernetes")
	}
	return string(m[1])
}
