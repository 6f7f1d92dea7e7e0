package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The values matrix: the chart's defaults and every charts/tandem/ci/*-values.yaml (each mode, joint
// mode, each wiring, TLS on, NFD, NetworkPolicy, dashboard).
func matrix(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(Chart(), "ci", "*-values.yaml"))
	if err != nil || len(files) < 8 {
		t.Fatalf("ci values files: %v %v", files, err)
	}
	out := map[string][]string{"default": nil}
	for _, f := range files {
		out[strings.TrimSuffix(filepath.Base(f), "-values.yaml")] = []string{f}
	}
	return out
}

func render(t *testing.T, valueFiles []string, extra ...string) []Object {
	t.Helper()
	out, err := Template(valueFiles, extra...)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := SplitYAML(out)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// helm lint --strict and helm template succeed for every case of the matrix, with and without the
// Prometheus Operator's API; every object has a kind, a name and the namespace it belongs in.
func TestLintAndTemplateMatrix(t *testing.T) {
	for name, files := range matrix(t) {
		t.Run(name, func(t *testing.T) {
			args := []string{"lint", Chart(), "--strict", "--kube-version", KubeVersion, "--namespace", Namespace}
			for _, f := range files {
				args = append(args, "--values", f)
			}
			if out, err := Helm(args...); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, caps := range [][]string{nil, monitoringAPIs} {
				objs := render(t, files, caps...)
				if len(objs) < 18 {
					t.Fatalf("only %d objects rendered", len(objs))
				}
				for _, o := range objs {
					md, _ := o["metadata"].(map[string]any)
					if o["apiVersion"] == nil || o["kind"] == nil || md["name"] == nil {
						t.Errorf("object without apiVersion, kind or name: %v", o)
					}
				}
			}
		})
	}
}

// The API versions `helm template --api-versions` announces as if the Prometheus Operator were installed
// (`helm install` asks the API server instead).
var monitoringAPIs = []string{
	"--api-versions", "monitoring.coreos.com/v1/ServiceMonitor",
	"--api-versions", "monitoring.coreos.com/v1/PodMonitor",
	"--api-versions", "monitoring.coreos.com/v1/PrometheusRule",
}

func ci(name string) []string { return []string{filepath.Join(Chart(), "ci", name+"-values.yaml")} }

func pluginConfig(t *testing.T, objs []Object) map[string]any {
	t.Helper()
	cm := Find(objs, "ConfigMap", "tandem-device-plugin-config")
	var c map[string]any
	if err := json.Unmarshal([]byte(cm["data"].(map[string]any)["config.json"].(string)), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func container(t *testing.T, o Object) map[string]any {
	t.Helper()
	if o == nil {
		t.Fatal("object missing")
	}
	spec := o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	return spec["containers"].([]any)[0].(map[string]any)
}

func podSpec(o Object) map[string]any {
	return o["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func schedulerConfig(t *testing.T, objs []Object) map[string]any {
	t.Helper()
	cm := Find(objs, "ConfigMap", "tandem-scheduler-config")
	if cm == nil {
		t.Fatal("no ConfigMap tandem-scheduler-config")
	}
	o := Normalize(cm)
	return o["data"].(map[string]any)["kube-scheduler-config.yaml"].(map[string]any)
}

// What each case of the matrix changes, read from the rendered objects.
func TestMatrixCases(t *testing.T) {
	t.Run("modes", func(t *testing.T) {
		if c := pluginConfig(t, render(t, ci("mode-sriov"))); !reflect.DeepEqual(c, map[string]any{"mode": "sriov", "selectors": map[string]any{"linkLayers": []any{"Ethernet"}}}) {
			t.Errorf("sriov config.json %v", c)
		}
		objs := render(t, ci("mode-shared"))
		if c := pluginConfig(t, objs); !reflect.DeepEqual(c, map[string]any{"mode": "shared", "slotsPerHca": 1000.0, "resourceName": "rdma/shared_hca", "healthCheckSeconds": 30.0, "allocateAllDevices": true}) {
			t.Errorf("shared config.json %v", c)
		}
		ext := schedulerConfig(t, objs)["extenders"].([]any)[0].(map[string]any)
		var managed []string
		for _, m := range ext["managedResources"].([]any) {
			managed = append(managed, m.(map[string]any)["name"].(string))
		}
		if !reflect.DeepEqual(managed, []string{"nvidia.com/gpu", "rdma/shared_hca"}) {
			t.Errorf("managedResources %v follow resourceNames", managed)
		}
		// the one value feeds the agent and the extender too
		for _, w := range []struct{ kind, name string }{{"DaemonSet", "tandem-node-topology-agent"}, {"Deployment", "tandem-scheduler-extender"}} {
			args := strs(container(t, Find(objs, w.kind, w.name))["args"])
			if !contains(args, "--hca-resource-name=rdma/shared_hca") || contains(args, "--gpu-resource-name=nvidia.com/gpu") {
				t.Errorf("%s %s args %v: want --hca-resource-name=rdma/shared_hca and no GPU flag (the default)", w.kind, w.name, args)
			}
		}
		gpuRenamed := render(t, []string{writeValues(t, "resourceNames: {gpu: example.com/gpu}")})
		if c := pluginConfig(t, gpuRenamed); !reflect.DeepEqual(c, map[string]any{"mode": "hca", "gpu": map[string]any{"resourceName": "example.com/gpu"}}) {
			t.Errorf("a renamed GPU resource reaches the plugin's hint mode too: config.json %v", c)
		}
		if args := strs(container(t, Find(gpuRenamed, "DaemonSet", "tandem-node-topology-agent"))["args"]); !reflect.DeepEqual(args, []string{"run", "--gpu-resource-name=example.com/gpu"}) {
			t.Errorf("agent args %v", args)
		}
	})
	t.Run("node class defaults", func(t *testing.T) {
		args := strs(container(t, Find(render(t, ci("nfd-networkpolicy")), "Deployment", "tandem-scheduler-extender"))["args"])
		want := `--node-class-defaults=[{"alignment":"numa","nodeSelector":{"nvidia.com/gpu.product":"NVIDIA-GB200"}}]`
		if !contains(args, want) {
			t.Errorf("extender args %v: want %s", args, want)
		}
		for _, a := range strs(container(t, Find(render(t, nil), "Deployment", "tandem-scheduler-extender"))["args"]) {
			if strings.HasPrefix(a, "--node-class-defaults") {
				t.Errorf("the defaults render %s", a)
			}
		}
	})
	t.Run("joint", func(t *testing.T) {
		objs := render(t, ci("joint-cdi"))
		if c := pluginConfig(t, objs); !reflect.DeepEqual(c["gpu"], map[string]any{"enabled": true, "cdi": true, "reservationSeconds": 60.0}) {
			t.Errorf("joint config.json %v", c)
		}
		c := container(t, Find(objs, "DaemonSet", "tandem-device-plugin"))
		if !reflect.DeepEqual(strs(c["args"]), []string{"--config=/etc/tandem/device-plugin/config.json", "--sysfs-root=/host"}) {
			t.Errorf("joint device-plugin args %v", c["args"])
		}
		mounts := map[string]string{}
		for _, m := range c["volumeMounts"].([]any) {
			mounts[m.(map[string]any)["mountPath"].(string)] = m.(map[string]any)["name"].(string)
		}
		if mounts["/host/sys"] != "sys" || mounts["/host/proc/driver/nvidia"] != "nvidia-driver" {
			t.Errorf("joint mounts %v", mounts)
		}
	})
	t.Run("dra", func(t *testing.T) {
		for _, name := range []string{"dra", "dra-joint"} {
			objs := render(t, ci(name))
			for _, k := range []string{"DaemonSet", "ConfigMap", "ServiceAccount", "ClusterRole", "ClusterRoleBinding"} {
				if o := Find(objs, k, "tandem-device-plugin"); o != nil || Find(objs, "ConfigMap", "tandem-device-plugin-config") != nil {
					t.Errorf("%s: the device plugin's %s is rendered beside the DRA driver", name, k)
				}
			}
		}
		if Find(render(t, nil), "DaemonSet", "tandem-dra-driver") != nil {
			t.Error("the DRA driver is rendered by default")
		}
		objs := render(t, []string{writeValues(t, "draDriver: {enabled: true, joint: true, driverName: dra.example.com, port: 9500, extraArgs: [--mode=hca]}\nnodes: {ncclTopology: /opt/topo.xml}\nnetworkPolicy: {enabled: true}")})
		ds := Find(objs, "DaemonSet", "tandem-dra-driver")
		c := container(t, ds)
		want := []string{"--joint", "--driver-name=dra.example.com", "--ops-port=9500", "--nccl-topo=/etc/tandem/nccl-topo.xml", "--mode=hca"}
		if !reflect.DeepEqual(strs(c["args"]), want) {
			t.Errorf("DRA driver args %v, want %v", c["args"], want)
		}
		var plugin, topo string
		for _, v := range podSpec(ds)["volumes"].([]any) {
			v := v.(map[string]any)
			if hp, ok := v["hostPath"].(map[string]any); ok && v["name"] == "plugin" {
				plugin = hp["path"].(string)
			} else if ok && v["name"] == "nccl-topology" {
				topo = hp["path"].(string)
			}
		}
		if plugin != "/var/lib/kubelet/plugins/dra.example.com" || topo != "/opt/topo.xml" {
			t.Errorf("plugin directory %q (want the driver name's), NCCL topology %q", plugin, topo)
		}
		for _, dc := range []string{"tandem-gpu", "tandem-hca"} {
			o := Find(objs, "DeviceClass", dc)
			if o == nil {
				t.Fatalf("no DeviceClass %s", dc)
			}
			expr := o["spec"].(map[string]any)["selectors"].([]any)[0].(map[string]any)["cel"].(map[string]any)["expression"].(string)
			if !strings.HasPrefix(expr, `device.driver == "dra.example.com" && `) {
				t.Errorf("DeviceClass %s selects %q: want the driver name", dc, expr)
			}
		}
		if Find(objs, "NetworkPolicy", "tandem-dra-driver") == nil || Find(objs, "NetworkPolicy", "tandem-device-plugin") != nil {
			t.Errorf("NetworkPolicies %v: want tandem-dra-driver's instead of the device plugin's", Keys(objs))
		}
		if objs := render(t, []string{writeValues(t, "draDriver: {enabled: true, deviceClasses: {enabled: false}}")}); Find(objs, "DeviceClass", "tandem-hca") != nil {
			t.Error("draDriver.deviceClasses.enabled=false still renders tandem-hca")
		}
	})
	t.Run("default-scheduler", func(t *testing.T) {
		objs := render(t, ci("default-scheduler"))
		if Find(objs, "Deployment", "tandem-scheduler") != nil {
			t.Error("default-scheduler wiring renders the second scheduler")
		}
		svc := Find(objs, "Service", "tandem-scheduler-extender-static")
		if svc == nil || svc["spec"].(map[string]any)["clusterIP"] != "10.96.0.88" {
			t.Errorf("static Service %v", svc)
		}
		notes, err := Template(ci("default-scheduler"), "--show-only", "templates/NOTES.txt")
		if err == nil {
			t.Logf("NOTES rendered through --show-only: %s", notes)
		}
	})
	t.Run("none", func(t *testing.T) {
		objs := render(t, ci("no-wiring"))
		if Find(objs, "Deployment", "tandem-scheduler") != nil || Find(objs, "Service", "tandem-scheduler-extender-static") != nil {
			t.Error("wiring none renders a wiring")
		}
	})
	t.Run("tls", func(t *testing.T) {
		objs := render(t, ci("tls"), monitoringAPIs...)
		sec := Find(objs, "Secret", "tandem-scheduler-extender-tls")
		if sec == nil {
			t.Fatal("no generated Secret")
		}
		var keys []string
		for k := range sec["data"].(map[string]any) {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !reflect.DeepEqual(keys, []string{"ca.crt", "tls.crt", "tls.key"}) {
			t.Errorf("Secret keys %v", keys)
		}
		args := strs(container(t, Find(objs, "Deployment", "tandem-scheduler-extender"))["args"])
		if !contains(args, "--tls-cert=/etc/tandem/tls/tls.crt") || !contains(args, "--tls-key=/etc/tandem/tls/tls.key") ||
			!contains(args, "--client-ca=/etc/tandem/tls/ca.crt") || contains(args, "--insecure-verbs") {
			t.Errorf("extender args %v: want mutual TLS", args)
		}
		client := Find(objs, "Secret", "tandem-scheduler-client-tls")
		if client == nil || client["data"].(map[string]any)["ca.crt"] != sec["data"].(map[string]any)["ca.crt"] {
			t.Error("no generated client Secret with the extender's CA")
		}
		vols := podSpec(Find(objs, "Deployment", "tandem-scheduler"))["volumes"].([]any)
		if s := vols[len(vols)-1].(map[string]any)["secret"].(map[string]any); s["secretName"] != "tandem-scheduler-client-tls" {
			t.Errorf("second scheduler's TLS volume %v: want the client Secret", s)
		}
		ext := schedulerConfig(t, objs)["extenders"].([]any)[0].(map[string]any)
		if ext["enableHTTPS"] != true || ext["urlPrefix"] != "https://tandem-scheduler-extender.tandem-system.svc:8888/scheduler" {
			t.Errorf("extender entry %v", ext)
		}
		if tc, _ := ext["tlsConfig"].(map[string]any); tc["caFile"] != "/etc/tandem-scheduler-tls/ca.crt" || tc["serverName"] != "tandem-scheduler-extender.tandem-system.svc" ||
			tc["certFile"] != "/etc/tandem-scheduler-tls/tls.crt" || tc["keyFile"] != "/etc/tandem-scheduler-tls/tls.key" {
			t.Errorf("tlsConfig %v", ext["tlsConfig"])
		}
		sm := Find(objs, "ServiceMonitor", "tandem-scheduler-extender")
		ep := sm["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)
		if ep["port"] != "inspection" || ep["scheme"] != nil {
			t.Errorf("ServiceMonitor endpoint %v: want the inspection port over plain HTTP (the verbs port asks for a client certificate)", ep)
		}
		objs = render(t, ci("tls-default-scheduler"))
		if Find(objs, "Secret", "tandem-scheduler-extender-tls") != nil {
			t.Error("a Secret was generated although extender.tls.secretName names one")
		}
		vols = podSpec(Find(objs, "Deployment", "tandem-scheduler-extender"))["volumes"].([]any)
		if s := vols[len(vols)-1].(map[string]any)["secret"].(map[string]any); s["secretName"] != "tandem-extender-cert" {
			t.Errorf("extender TLS volume %v", s)
		}
		objs = render(t, ci("tls-cert-manager"))
		if Find(objs, "Secret", "tandem-scheduler-extender-tls") != nil {
			t.Error("a Secret was generated although cert-manager issues it")
		}
		for _, name := range []string{"tandem-scheduler-extender-ca", "tandem-scheduler-extender-tls", "tandem-scheduler-client-tls"} {
			c := Find(objs, "Certificate", name)
			if c == nil || c["spec"].(map[string]any)["secretName"] != name {
				t.Errorf("no cert-manager Certificate %s writing the Secret of that name: %v", name, c)
			}
		}
		if u := Find(objs, "Certificate", "tandem-scheduler-client-tls")["spec"].(map[string]any)["usages"]; !reflect.DeepEqual(u, []any{"digital signature", "key encipherment", "client auth"}) {
			t.Errorf("client certificate usages %v", u)
		}
		objs = render(t, nil)
		if args := strs(container(t, Find(objs, "Deployment", "tandem-scheduler-extender"))["args"]); !contains(args, "--client-ca=/etc/tandem/tls/ca.crt") {
			t.Errorf("mutual TLS is not the default: %v", args)
		}
		objs = render(t, []string{writeValues(t, "extender: {tls: {enabled: false}}")})
		if args := strs(container(t, Find(objs, "Deployment", "tandem-scheduler-extender"))["args"]); !contains(args, "--insecure-verbs") {
			t.Errorf("tls.enabled=false must say --insecure-verbs explicitly: %v", args)
		}
	})
	t.Run("nfd-networkpolicy", func(t *testing.T) {
		objs := render(t, ci("nfd-networkpolicy"))
		for _, ds := range []string{"tandem-node-topology-agent", "tandem-device-plugin"} {
			sel := podSpec(Find(objs, "DaemonSet", ds))["nodeSelector"]
			want := map[string]any{"feature.node.kubernetes.io/pci-10de.present": "true", "feature.node.kubernetes.io/pci-15b3.present": "true"}
			if !reflect.DeepEqual(sel, want) {
				t.Errorf("%s nodeSelector %v", ds, sel)
			}
		}
		if img := container(t, Find(objs, "DaemonSet", "tandem-node-topology-agent"))["image"]; img != "registry.example.com/tandem/node-topology-agent:0.1.0-rc1" {
			t.Errorf("agent image %v", img)
		}
		if img := container(t, Find(objs, "DaemonSet", "tandem-device-plugin"))["image"]; img != "registry.example.com/tandem/device-plugin:0.1.0" {
			t.Errorf("device-plugin image %v", img)
		}
		args := strs(container(t, Find(objs, "Deployment", "tandem-scheduler-extender"))["args"])
		for _, a := range []string{"--default-alignment=root-complex", "--default-mode=preferred", "--assumed-ttl=10m"} {
			if !contains(args, a) {
				t.Errorf("extender args %v lack %s", args, a)
			}
		}
		for _, np := range []string{"tandem-scheduler-extender", "tandem-node-topology-agent", "tandem-device-plugin"} {
			if Find(objs, "NetworkPolicy", np) == nil {
				t.Errorf("no NetworkPolicy %s", np)
			}
		}
		cm := Find(objs, "ConfigMap", "tandem-dashboard")
		if cm == nil || cm["metadata"].(map[string]any)["labels"].(map[string]any)["grafana_dashboard"] != "1" {
			t.Fatalf("dashboard ConfigMap %v", cm)
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(cm["data"].(map[string]any)["tandem-dashboard.json"].(string)), &d); err != nil || d["uid"] != "tandem-overview" {
			t.Errorf("dashboard JSON in the ConfigMap: %v", err)
		}
	})
	t.Run("monitoring only with the operator's API", func(t *testing.T) {
		for _, o := range render(t, nil) {
			if strings.HasPrefix(o["apiVersion"].(string), "monitoring.coreos.com/") {
				t.Errorf("%s rendered without the Prometheus Operator's API", Key(o))
			}
		}
		objs := render(t, nil, monitoringAPIs...)
		for _, k := range []string{"ServiceMonitor tandem-system/tandem-scheduler-extender", "PodMonitor tandem-system/tandem-node-topology-agent", "PrometheusRule tandem-system/tandem"} {
			if !contains(Keys(objs), k) {
				t.Errorf("%s not rendered with the Prometheus Operator's API", k)
			}
		}
	})
}

// The Device Information directory: mounted read-write from the host at the same path when on (the
// spec's by default, no flag), --device-info-dir=off and no mount when off, the flag for another path.
func TestDeviceInfoDirectory(t *testing.T) {
	const spec = "/var/run/k8s.cni.cncf.io/devinfo/dp"
	for _, c := range []struct {
		name   string
		values []string
		flag   string
		mount  string
	}{
		{"default", nil, "", spec},
		{"off (mode-shared)", ci("mode-shared"), "--device-info-dir=off", ""},
		{"another path", []string{writeValues(t, "devicePlugin: {deviceInfo: {hostPath: /run/devinfo}}")}, "--device-info-dir=/run/devinfo", "/run/devinfo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := Find(render(t, c.values), "DaemonSet", "tandem-device-plugin")
			ctr := container(t, ds)
			var flags []string
			for _, a := range strs(ctr["args"]) {
				if strings.HasPrefix(a, "--device-info-dir") {
					flags = append(flags, a)
				}
			}
			if (c.flag == "" && len(flags) != 0) || (c.flag != "" && !reflect.DeepEqual(flags, []string{c.flag})) {
				t.Errorf("device-plugin args %v, want the flag %q", ctr["args"], c.flag)
			}
			var mount map[string]any
			for _, m := range ctr["volumeMounts"].([]any) {
				if m.(map[string]any)["name"] == "device-info" {
					mount = m.(map[string]any)
				}
			}
			var vol map[string]any
			for _, v := range podSpec(ds)["volumes"].([]any) {
				if v.(map[string]any)["name"] == "device-info" {
					vol = v.(map[string]any)["hostPath"].(map[string]any)
				}
			}
			if c.mount == "" {
				if mount != nil || vol != nil {
					t.Errorf("off: mount %v, volume %v, want none", mount, vol)
				}
				return
			}
			if mount == nil || mount["mountPath"] != c.mount || mount["readOnly"] == true || vol == nil || vol["path"] != c.mount || vol["type"] != "DirectoryOrCreate" {
				t.Errorf("mount %v, volume %v, want %s read-write from the host's %s (DirectoryOrCreate)", mount, vol, c.mount, c.mount)
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Values the schema (or the chart's cross-field checks) must reject, each with a message naming the
// value and what is allowed.
func TestWrongValuesAreRejectedWithAMessage(t *testing.T) {
	cases := []struct{ name, values, want string }{
		{"wrong mode", "devicePlugin: {config: {mode: rdma}}", "at '/devicePlugin/config/mode': value must be one of 'hca', 'sriov', 'shared'"},
		{"resource name without a domain", "resourceNames: {hca: hca}", "at '/resourceNames/hca': 'hca' does not match pattern"},
		{"resource name with a space", "resourceNames: {hca: 'rdma/h ca'}", "at '/resourceNames/hca': 'rdma/h ca' does not match pattern"},
		{"GPU resource name", "resourceNames: {gpu: 'nvidia.com/'}", "at '/resourceNames/gpu'"},
		{"resource name where it used to be", "devicePlugin: {config: {resourceName: rdma/x}}", "at '/devicePlugin/config': additional properties 'resourceName' not allowed"},
		{"non-integer slot count", "devicePlugin: {config: {mode: shared, slotsPerHca: 1.5}}", "at '/devicePlugin/config/slotsPerHca': got number, want null or integer"},
		{"slot count as text", "devicePlugin: {config: {mode: shared, slotsPerHca: many}}", "at '/devicePlugin/config/slotsPerHca': got string, want null or integer"},
		{"zero slots", "devicePlugin: {config: {mode: shared, slotsPerHca: 0}}", "at '/devicePlugin/config/slotsPerHca': minimum: got 0, want 1"},
		{"slots outside shared mode", "devicePlugin: {config: {mode: hca, slotsPerHca: 8}}", "devicePlugin.config.slotsPerHca is 8, but only mode shared offers several slots per HCA (mode is hca)"},
		{"all devices in sriov mode", "devicePlugin: {config: {mode: sriov, allocateAllDevices: true}}", "devicePlugin.config.allocateAllDevices hands every container all the node's RDMA devices, but mode sriov gives each VF to one pod"},
		{"all devices as text", "devicePlugin: {config: {allocateAllDevices: 'yes'}}", "at '/devicePlugin/config/allocateAllDevices': got string, want boolean"},
		{"unknown selector", "devicePlugin: {config: {selectors: {vendor: ['15b3']}}}", "at '/devicePlugin/config/selectors': additional properties 'vendor' not allowed"},
		{"same GPU and HCA resource", "resourceNames: {gpu: rdma/hca}", "resourceNames.gpu and resourceNames.hca are both rdma/hca"},
		{"wrong wiring", "scheduler: {wiring: kube-scheduler}", "at '/scheduler/wiring': value must be one of 'second-scheduler', 'default-scheduler', 'none'"},
		{"service address", "scheduler: {wiring: default-scheduler, clusterIP: 300.1.1.1}", "at '/scheduler/clusterIP': '300.1.1.1' is not valid ipv4"},
		{"misspelt value", "extender: {replica: 3}", "at '/extender': additional properties 'replica' not allowed"},
		{"cert-manager and your own Secret", "extender: {tls: {secretName: mine, certManager: {enabled: true}}}", "extender.tls.certManager.enabled issues the Secrets itself"},
		{"device plugin's joint mode under DRA", "draDriver: {enabled: true}\ndevicePlugin: {joint: {enabled: true}}", "draDriver.enabled runs the DRA driver instead of the device plugin, so devicePlugin.joint.enabled does nothing"},
		{"DRA joint mode without the driver", "draDriver: {joint: true}", "draDriver.joint is set but draDriver.enabled is false"},
		{"DRA driver name", "draDriver: {enabled: true, driverName: Tandem_Dev}", "at '/draDriver/driverName': 'Tandem_Dev' does not match pattern"},
		{"DRA device classes as a flag", "draDriver: {deviceClasses: true}", "at '/draDriver/deviceClasses': got boolean, want object"},
		{"node class with no labels", "extender: {nodeClassDefaults: [{nodeSelector: {}, alignment: numa}]}", "at '/extender/nodeClassDefaults/0/nodeSelector': minProperties: got 0, want 1"},
		{"node class alignment", "extender: {nodeClassDefaults: [{nodeSelector: {a: b}, alignment: numaa}]}", "at '/extender/nodeClassDefaults/0/alignment': value must be one of"},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(dir, string(rune('a'+i))+".yaml")
			if err := os.WriteFile(f, []byte(c.values+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Template([]string{f})
			if err == nil {
				t.Fatalf("values %q were accepted", c.values)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("values %q rejected without the message %q:\n%v", c.values, c.want, err)
			}
			// helm lint reports the schema's errors; a template's fail() is only an [INFO] line in lint
			// mode (Helm's engine), so those values are rejected by template and install only.
			if _, lintErr := Helm("lint", Chart(), "--values", f, "--kube-version", KubeVersion); lintErr == nil && strings.HasPrefix(c.want, "at '") {
				t.Errorf("helm lint accepts values %q", c.values)
			}
		})
	}
}

func writeValues(t *testing.T, values string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(f, []byte(values+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
