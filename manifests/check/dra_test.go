package check

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/kubernetes/pkg/apis/resource"
	resourceinstall "k8s.io/kubernetes/pkg/apis/resource/install"
	resourcevalidation "k8s.io/kubernetes/pkg/apis/resource/validation"
	"k8s.io/utils/ptr"
	kresource "sigs.k8s.io/kustomize/api/resource"
)

// The DRA install paths: manifests/ with the device plugin replaced by the DRA driver.
var draOverlays = []string{"overlays/dra", "overlays/dra-joint"}

// installWithout is the install's inventory (TestInstallHasEachKindOncePerComponent) without one
// component, plus extra rows.
func installWithout(t *testing.T, component string, extra ...string) []string {
	t.Helper()
	var out []string
	for _, row := range Inventory(mustRender(t, ".")) {
		if !strings.HasPrefix(row, component+" ") {
			out = append(out, row)
		}
	}
	return append(out, extra...)
}

var draDriverRows = []string{
	"tandem-dra-driver ServiceAccount",
	"tandem-dra-driver ClusterRole",
	"tandem-dra-driver ClusterRoleBinding",
	"tandem-dra-driver DaemonSet",
	"tandem-dra-driver DeviceClass",
}

// overlays/dra is the install with the DRA driver, its RBAC and the DeviceClass tandem-hca in place of
// every device-plugin object (a node's HCAs come from one of the two, never both); dra-joint adds the
// DeviceClass tandem-gpu.
func TestDraOverlaysReplaceTheDevicePlugin(t *testing.T) {
	rs := expectInventory(t, "overlays/dra", installWithout(t, "tandem-device-plugin", draDriverRows...))
	if got := deviceClassNames(rs); !reflect.DeepEqual(got, []string{"tandem-hca"}) {
		t.Errorf("overlays/dra DeviceClasses %v, want [tandem-hca]", got)
	}
	rs = expectInventory(t, "overlays/dra-joint", installWithout(t, "tandem-device-plugin", append(draDriverRows, "tandem-dra-driver DeviceClass")...))
	if got := deviceClassNames(rs); !reflect.DeepEqual(got, []string{"tandem-gpu", "tandem-hca"}) {
		t.Errorf("overlays/dra-joint DeviceClasses %v, want [tandem-gpu tandem-hca]", got)
	}
}

func deviceClassNames(rs []*kresource.Resource) []string {
	var out []string
	for _, r := range rs {
		if r.GetKind() == "DeviceClass" {
			out = append(out, r.GetName())
		}
	}
	sort.Strings(out)
	return out
}

// The driver's pod: the kubelet's plugin registry and its own plugin directory (the sockets), the CDI
// directory read-write, /sys read-only, /etc/cdi read-only in joint mode only, no /dev; --joint in
// joint mode only; the node name from the downward API; /healthz and /readyz on the ops port.
func TestDraDriverPod(t *testing.T) {
	common := map[string]bool{
		"/var/lib/kubelet/plugins_registry":   false,
		"/var/lib/kubelet/plugins/tandem.dev": false,
		"/var/run/cdi":                        false,
		"/sys":                                true,
	}
	joint := map[string]bool{"/etc/cdi": true}
	for k, v := range common {
		joint[k] = v
	}
	for _, c := range []struct {
		rel   string
		args  []string
		paths map[string]bool
	}{
		{"overlays/dra", nil, common},
		{"overlays/dra-joint", []string{"--joint"}, joint},
	} {
		ds := find(t, mustRender(t, c.rel), "DaemonSet", "tandem-dra-driver")
		if got := hostPaths(t, ds); !reflect.DeepEqual(got, c.paths) {
			t.Errorf("manifests/%s: driver host paths (path -> read-only) = %v, want %v", c.rel, got, c.paths)
		}
		obj, _ := DecodeStrict(ds)
		spec := obj.(*appsv1.DaemonSet).Spec.Template.Spec
		ctr := spec.Containers[0]
		if !reflect.DeepEqual(ctr.Args, c.args) {
			t.Errorf("manifests/%s: driver args %q, want %q", c.rel, ctr.Args, c.args)
		}
		if spec.ServiceAccountName != "tandem-dra-driver" || spec.NodeSelector["tandem.dev/rdma"] != "true" {
			t.Errorf("manifests/%s: service account %q, node selector %v", c.rel, spec.ServiceAccountName, spec.NodeSelector)
		}
		var node *corev1.EnvVar
		for i := range ctr.Env {
			if ctr.Env[i].Name == "NODE_NAME" {
				node = &ctr.Env[i]
			}
		}
		if node == nil || node.ValueFrom == nil || node.ValueFrom.FieldRef == nil || node.ValueFrom.FieldRef.FieldPath != "spec.nodeName" {
			t.Errorf("manifests/%s: NODE_NAME must come from spec.nodeName: %+v", c.rel, node)
		}
		if len(ctr.Ports) != 1 || ctr.Ports[0].Name != "http" || ctr.Ports[0].ContainerPort != 9403 {
			t.Errorf("manifests/%s: ports %+v, want http 9403 (--ops-port's default)", c.rel, ctr.Ports)
		}
		if p := ctr.LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || p.HTTPGet.Port.String() != "http" {
			t.Errorf("manifests/%s: liveness probe %+v, want /healthz on http", c.rel, p)
		}
		if p := ctr.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz" || p.HTTPGet.Port.String() != "http" {
			t.Errorf("manifests/%s: readiness probe %+v, want /readyz on http", c.rel, p)
		}
	}
}

// published reads the sources for what the DRA driver publishes: the fully qualified attribute
// names (tandem-api's DraAttributes) and the values of tandem.dev/kind (DeviceAttributes, tandem-api, which the driver publishes).
func published(t *testing.T) (attributes map[string]bool, kinds []string) {
	t.Helper()
	repo := filepath.Dir(ManifestsDir())
	src, err := os.ReadFile(filepath.Join(repo, "tandem-api/src/main/java/dev/tandem/api/dra/DraAttributes.java"))
	if err != nil {
		t.Fatal(err)
	}
	domains := map[string]string{}
	for _, m := range regexp.MustCompile(`([A-Z_]+_DOMAIN) = "([a-z.]+)"`).FindAllStringSubmatch(string(src), -1) {
		domains[m[1]] = m[2]
	}
	attributes = map[string]bool{}
	for _, m := range regexp.MustCompile(`= ([A-Z_]+_DOMAIN) \+ "/([A-Za-z]+)"`).FindAllStringSubmatch(string(src), -1) {
		attributes[domains[m[1]]+"/"+m[2]] = true
	}
	src, err = os.ReadFile(filepath.Join(repo, "tandem-api/src/main/java/dev/tandem/api/dra/DeviceAttributes.java"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`DraAttributes\.KIND, text\("([a-z]+)"\)`).FindAllStringSubmatch(string(src), -1) {
		kinds = append(kinds, m[1])
	}
	sort.Strings(kinds)
	if len(attributes) < 10 || !reflect.DeepEqual(kinds, []string{"gpu", "hca"}) {
		t.Fatalf("the driver's sources were not read: attributes %v, kinds %v", attributes, kinds)
	}
	return attributes, kinds
}

// internal converts a resource.k8s.io/v1 object to the API server's internal type after the
// API server's defaulting, so that the API server's own validation can run on it.
func internal(t *testing.T, in k8sruntime.Object, out k8sruntime.Object) {
	t.Helper()
	s := k8sruntime.NewScheme()
	resourceinstall.Install(s)
	s.Default(in)
	if err := s.Convert(in, out, nil); err != nil {
		t.Fatal(err)
	}
}

// Each DeviceClass passes the API server's validation (its CEL compiles within the cost limit) and,
// evaluated with kube-scheduler's CEL environment, selects exactly the devices of its kind that
// Tandem's driver publishes: not the other kind, not another driver's devices (which have no
// tandem.dev attributes, so the selector must not fail on them either).
func TestDeviceClassesSelectTheirKind(t *testing.T) {
	_, kinds := published(t)
	device := func(driver string, attrs map[string]string) cel.Device {
		d := cel.Device{Driver: driver, Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{}}
		for k, v := range attrs {
			d.Attributes[resourcev1.QualifiedName(k)] = resourcev1.DeviceAttribute{StringValue: ptr.To(v)}
		}
		return d
	}
	devices := map[string]cel.Device{
		"nvidia GPU":                device("gpu.nvidia.com", map[string]string{"uuid": "GPU-1"}),
		"other driver, tandem kind": device("example.com", map[string]string{"tandem.dev/kind": "hca"}),
		"tandem driver, kind other": device("tandem.dev", map[string]string{"tandem.dev/kind": "nic"}),
	}
	for _, k := range kinds {
		devices["tandem "+k] = device("tandem.dev", map[string]string{"tandem.dev/kind": k, "resource.kubernetes.io/pcieRoot": "pci0000:40"})
	}
	classes := map[string]string{}
	for _, r := range mustRender(t, "overlays/dra-joint") {
		if r.GetKind() != "DeviceClass" {
			continue
		}
		obj, err := DecodeStrict(r)
		if err != nil {
			t.Fatal(err)
		}
		dc := obj.(*resourcev1.DeviceClass)
		var in resource.DeviceClass
		internal(t, dc, &in)
		if errs := resourcevalidation.ValidateDeviceClass(&in); len(errs) > 0 {
			t.Errorf("DeviceClass %s: the API server's validation: %v", dc.Name, errs.ToAggregate())
		}
		if len(dc.Spec.Selectors) != 1 || dc.Spec.Selectors[0].CEL == nil {
			t.Fatalf("DeviceClass %s: want one CEL selector, have %+v", dc.Name, dc.Spec.Selectors)
		}
		classes[dc.Name] = dc.Spec.Selectors[0].CEL.Expression
	}
	if len(classes) != len(kinds) {
		t.Fatalf("DeviceClasses %v for the kinds %v", classes, kinds)
	}
	for name, expr := range classes {
		prog := cel.GetCompiler(cel.Features{}).CompileCELExpression(expr, cel.Options{})
		if prog.Error != nil {
			t.Fatalf("DeviceClass %s: %v", name, prog.Error)
		}
		var selected []string
		for what, d := range devices {
			ok, _, err := prog.DeviceMatches(context.Background(), d)
			if err != nil {
				t.Errorf("DeviceClass %s on %s: %v", name, what, err)
			}
			if ok {
				selected = append(selected, what)
			}
		}
		want := []string{"tandem " + strings.TrimPrefix(name, "tandem-")}
		if !reflect.DeepEqual(selected, want) {
			t.Errorf("DeviceClass %s selects %v, want %v", name, selected, want)
		}
	}
}

// The claim examples: each a ResourceClaimTemplate the API server's validation accepts, asking for a
// GPU and an HCA from shipped DeviceClasses (or NVIDIA's gpu.nvidia.com, beside which HCA-only mode
// runs), constrained by one attribute the driver publishes; one example per alignment policy. The
// example pod uses a template of the examples and puts its claim on its container.
func TestDraClaimExamples(t *testing.T) {
	attributes, _ := published(t)
	classes := map[string]bool{"gpu.nvidia.com": true}
	for _, r := range mustRender(t, "overlays/dra-joint") {
		if r.GetKind() == "DeviceClass" {
			classes[r.GetName()] = true
		}
	}
	templates := map[string]bool{}
	var keys []string
	var pods []*corev1.Pod
	for _, r := range mustRender(t, "examples/dra") {
		obj, err := DecodeStrict(r)
		if err != nil {
			t.Fatal(err)
		}
		switch o := obj.(type) {
		case *corev1.Pod:
			pods = append(pods, o)
		case *resourcev1.ResourceClaimTemplate:
			templates[o.Name] = true
			var in resource.ResourceClaimTemplate
			internal(t, o.DeepCopy(), &in)
			in.Namespace = "default"
			if errs := resourcevalidation.ValidateResourceClaimTemplate(&in); len(errs) > 0 {
				t.Errorf("ResourceClaimTemplate %s: the API server's validation: %v", o.Name, errs.ToAggregate())
			}
			keys = append(keys, checkClaim(t, o.Name, o.Spec.Spec.Devices, classes, attributes)...)
		default:
			t.Errorf("examples/dra holds a %T", obj)
		}
	}
	sort.Strings(keys)
	want := []string{"resource.kubernetes.io/numaNode", "resource.kubernetes.io/pcieRoot", "tandem.dev/pcieSwitch", "tandem.dev/pixGroup"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("the claim examples align by %v, want one example for each of %v", keys, want)
	}
	if len(pods) != 1 {
		t.Fatalf("examples/dra holds %d pods, want 1", len(pods))
	}
	p := pods[0]
	if len(p.Spec.ResourceClaims) != 1 || p.Spec.ResourceClaims[0].ResourceClaimTemplateName == nil || !templates[*p.Spec.ResourceClaims[0].ResourceClaimTemplateName] {
		t.Errorf("pod %s: resourceClaims %+v, want one from a template of examples/dra %v", p.Name, p.Spec.ResourceClaims, templates)
	}
	if claims := p.Spec.Containers[0].Resources.Claims; len(p.Spec.ResourceClaims) == 1 && (len(claims) != 1 || claims[0].Name != p.Spec.ResourceClaims[0].Name) {
		t.Errorf("pod %s: the container's claims %+v do not name the pod's claim", p.Name, claims)
	}
}

// checkClaim checks one claim's requests and constraints and returns its matchAttribute keys.
func checkClaim(t *testing.T, name string, devices resourcev1.DeviceClaim, classes, attributes map[string]bool) []string {
	t.Helper()
	requests := map[string]bool{}
	for _, r := range devices.Requests {
		if r.Exactly == nil || !classes[r.Exactly.DeviceClassName] {
			t.Errorf("claim %s request %s: want exactly one of the classes %v, have %+v", name, r.Name, classes, r.Exactly)
			continue
		}
		requests[r.Name] = true
	}
	if len(requests) != 2 {
		t.Errorf("claim %s: requests %v, want a GPU and an HCA", name, requests)
	}
	var keys []string
	for _, c := range devices.Constraints {
		key := string(ptr.Deref(c.MatchAttribute, ""))
		if !attributes[key] {
			t.Errorf("claim %s: matchAttribute %q is no attribute the driver publishes", name, key)
			continue
		}
		for _, r := range c.Requests {
			if !requests[r] {
				t.Errorf("claim %s: the constraint names request %s, which the claim lacks", name, r)
			}
		}
		keys = append(keys, key)
	}
	return keys
}

// The validation used above rejects a claim the API server rejects (so those tests can fail).
func TestApiServerValidationRejectsABadClaim(t *testing.T) {
	bad := &resourcev1.ResourceClaimTemplate{}
	bad.Name = "bad"
	bad.Spec.Spec.Devices.Requests = []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "tandem-gpu"}}}
	bad.Spec.Spec.Devices.Constraints = []resourcev1.DeviceConstraint{{Requests: []string{"hca"}, MatchAttribute: ptr.To(resourcev1.FullyQualifiedName("pcieSwitch"))}}
	var in resource.ResourceClaimTemplate
	internal(t, bad, &in)
	in.Namespace = "default"
	errs := resourcevalidation.ValidateResourceClaimTemplate(&in)
	var fields []string
	for _, e := range errs {
		fields = append(fields, e.Field)
	}
	sort.Strings(fields)
	if len(errs) < 2 || !strings.Contains(strings.Join(fields, " "), "matchAttribute") || !strings.Contains(strings.Join(fields, " "), "requests") {
		t.Errorf("an unknown request and an attribute without domain gave %v", errs.ToAggregate())
	}
}

// The shipped claim templates, the generator's output (tandem-api ShippedClaimTemplatesTest), as
// kustomize builds manifests/examples/dra-claims and as the chart renders every one of them
// (charts/tandem/ci/dra-claims-values.yaml): each passes the API server's validation (within its
// limits: requests, alternatives, constraints), asks only for DeviceClasses of overlays/dra-joint in
// every request and alternative, and constrains only by attributes the driver publishes; both hold
// the same 28 templates (1+1 to 8+8, every policy).
func TestShippedClaimTemplatesAreValid(t *testing.T) {
	attributes, _ := published(t)
	classes := map[string]bool{}
	for _, r := range mustRender(t, "overlays/dra-joint") {
		if r.GetKind() == "DeviceClass" {
			classes[r.GetName()] = true
		}
	}
	var fromKustomize []*resourcev1.ResourceClaimTemplate
	for _, r := range mustRender(t, "examples/dra-claims") {
		obj, err := DecodeStrict(r)
		if err != nil {
			t.Fatal(err)
		}
		fromKustomize = append(fromKustomize, obj.(*resourcev1.ResourceClaimTemplate))
	}
	var fromChart []*resourcev1.ResourceClaimTemplate
	for _, doc := range strings.Split(string(helmTemplate(t, "dra-claims-values.yaml", "templates/claimtemplates.yaml")), "\n---\n") {
		if !strings.Contains(doc, "kind: ResourceClaimTemplate") {
			continue
		}
		obj, _, err := typed.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatalf("the chart's claim template: %v\n%s", err, doc)
		}
		fromChart = append(fromChart, obj.(*resourcev1.ResourceClaimTemplate))
	}
	for source, templates := range map[string][]*resourcev1.ResourceClaimTemplate{"examples/dra-claims": fromKustomize, "the chart": fromChart} {
		var names []string
		for _, o := range templates {
			names = append(names, o.Name)
			checkGeneratedClaim(t, source, o, classes, attributes)
		}
		if len(names) != 28 || names[0] != "tandem-1g1h-switch" || names[27] != "tandem-8g8h-none" {
			t.Errorf("%s holds %d templates %v, want the 28 shipped ones", source, len(names), names)
		}
	}
}

func checkGeneratedClaim(t *testing.T, source string, o *resourcev1.ResourceClaimTemplate, classes, attributes map[string]bool) {
	t.Helper()
	var in resource.ResourceClaimTemplate
	internal(t, o.DeepCopy(), &in)
	if errs := resourcevalidation.ValidateResourceClaimTemplate(&in); len(errs) > 0 {
		t.Errorf("%s: ResourceClaimTemplate %s: the API server's validation: %v", source, o.Name, errs.ToAggregate())
	}
	for _, r := range o.Spec.Spec.Devices.Requests {
		var asked []string
		if r.Exactly != nil {
			asked = append(asked, r.Exactly.DeviceClassName)
		}
		for _, sub := range r.FirstAvailable {
			asked = append(asked, sub.DeviceClassName)
		}
		for _, c := range asked {
			if !classes[c] {
				t.Errorf("%s: %s request %s asks for DeviceClass %q, not one of %v", source, o.Name, r.Name, c, classes)
			}
		}
	}
	for _, c := range o.Spec.Spec.Devices.Constraints {
		if key := string(ptr.Deref(c.MatchAttribute, "")); !attributes[key] {
			t.Errorf("%s: %s: matchAttribute %q is no attribute the driver publishes", source, o.Name, key)
		}
	}
}
