package check

import (
	"path"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

const (
	extenderSecret  = "tandem-scheduler-extender-tls"
	schedulerSecret = "tandem-scheduler-client-tls"
)

// The Secret volume mounted at dir, or "".
func secretAt(spec corev1.PodSpec, c corev1.Container, dir string) string {
	for _, m := range c.VolumeMounts {
		if m.MountPath != dir {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name == m.Name && v.Secret != nil {
				return v.Secret.SecretName
			}
		}
	}
	return ""
}

// Mutual TLS end to end in the manifests: the Job writes the two Secrets its Role may read; the
// extender serves with its Secret and trusts that Secret's CA for clients; the second scheduler
// mounts the client Secret exactly where its configuration's tlsConfig reads it.
func TestCertificatesWiring(t *testing.T) {
	rs := mustRender(t, ".")
	obj, _ := DecodeStrict(find(t, rs, "Job", "tandem-certificates"))
	job := obj.(*batchv1.Job)
	args := job.Spec.Template.Spec.Containers[0].Args
	if len(args) == 0 || args[0] != "certificates" {
		t.Errorf("Job args %v: want the extender jar's certificates subcommand", args)
	}
	obj, _ = DecodeStrict(find(t, rs, "Role", "tandem-certificates"))
	role := obj.(*rbacv1.Role)
	want := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{extenderSecret, schedulerSecret}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create"}},
	}
	if !reflect.DeepEqual(role.Rules, want) {
		t.Errorf("Role tandem-certificates rules %+v, want exactly %+v", role.Rules, want)
	}

	obj, _ = DecodeStrict(find(t, rs, "Deployment", "tandem-scheduler-extender"))
	ext := obj.(*appsv1.Deployment).Spec.Template.Spec
	c := ext.Containers[0]
	for _, flag := range []string{"--tls-cert=/etc/tandem/tls/tls.crt", "--tls-key=/etc/tandem/tls/tls.key", "--client-ca=/etc/tandem/tls/ca.crt"} {
		if !contains(c.Args, flag) {
			t.Errorf("extender args %v: want %s", c.Args, flag)
		}
	}
	if contains(c.Args, "--insecure-verbs") {
		t.Errorf("the shipped extender opts out of client authentication: %v", c.Args)
	}
	if got := secretAt(ext, c, "/etc/tandem/tls"); got != extenderSecret {
		t.Errorf("extender mounts Secret %q at /etc/tandem/tls, want %s", got, extenderSecret)
	}

	cfg, err := LoadSchedulerConfig(readManifest(t, "scheduler/second-scheduler/kube-scheduler-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tc := cfg.Extenders[0].TLSConfig
	obj, _ = DecodeStrict(find(t, mustRender(t, "scheduler/second-scheduler"), "Deployment", "tandem-scheduler"))
	sched := obj.(*appsv1.Deployment).Spec.Template.Spec
	dir := path.Dir(tc.CertFile)
	if path.Dir(tc.KeyFile) != dir || path.Dir(tc.CAFile) != dir {
		t.Fatalf("tlsConfig files %+v: want one directory (one Secret)", tc)
	}
	if got := secretAt(sched, sched.Containers[0], dir); got != schedulerSecret {
		t.Errorf("second scheduler mounts Secret %q at %s, want %s", got, dir, schedulerSecret)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Bind is a privilege: the verbs port admits the second scheduler's pods only (the default-scheduler
// patch adds the control-plane addresses, verbs port only); the inspection port is open to all.
func TestNetworkPolicyAdmitsOnlyTheSchedulerToTheVerbs(t *testing.T) {
	obj, _ := DecodeStrict(find(t, mustRender(t, "."), "NetworkPolicy", "tandem-scheduler-extender"))
	np := obj.(*networkingv1.NetworkPolicy)
	if np.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"] != "tandem-scheduler-extender" {
		t.Errorf("policy selects %v", np.Spec.PodSelector)
	}
	byPort := map[string]networkingv1.NetworkPolicyIngressRule{}
	for _, r := range np.Spec.Ingress {
		if len(r.Ports) != 1 {
			t.Fatalf("rule %+v: want one port per rule", r)
		}
		byPort[r.Ports[0].Port.StrVal] = r
	}
	verbs, inspection := byPort["verbs"], byPort["inspection"]
	if len(byPort) != 2 || len(verbs.From) != 1 || verbs.From[0].PodSelector == nil ||
		verbs.From[0].PodSelector.MatchLabels["app.kubernetes.io/name"] != "tandem-scheduler" || verbs.From[0].NamespaceSelector != nil {
		t.Errorf("verbs rule %+v: want only pods app.kubernetes.io/name=tandem-scheduler of tandem-system", verbs)
	}
	if len(inspection.From) != 0 {
		t.Errorf("inspection rule %+v: want it open (it serves no verb)", inspection)
	}
	obj, _ = DecodeStrict(find(t, mustRender(t, "scheduler/default-scheduler-patch"), "NetworkPolicy", "tandem-scheduler-extender-control-plane"))
	cp := obj.(*networkingv1.NetworkPolicy)
	if len(cp.Spec.Ingress) != 1 || cp.Spec.Ingress[0].Ports[0].Port.StrVal != "verbs" || cp.Spec.Ingress[0].From[0].IPBlock == nil {
		t.Errorf("control-plane policy %+v: want one ipBlock rule on the verbs port", cp.Spec.Ingress)
	}
}
