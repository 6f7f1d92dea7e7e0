package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"tandem.dev/e2e/internal/harness"
)

// runBaseline is run b with the extender of another checkout (-baseline): its jar on its JDK
// (-baseline-java), with its own Deployment's arguments and JAVA_TOOL_OPTIONS, so that an older
// tree (issue #30: the Java 17 one) is measured beside this one in the same cluster and run.
const runBaseline = "b-base"

// runWithoutCache is run b with this tree's extender started without its AOT cache (every
// -XX:AOTCache dropped from its JAVA_TOOL_OPTIONS), so that what the cache does to warm throughput
// and CPU per pod is measured beside b in one run (issue #30).
const runWithoutCache = "b-noaot"

// aotCacheFlag is the JVM option that names an AOT cache: -XX:AOTCache=<path>.
const aotCacheFlag = "-XX:AOTCache="

// extenderBuild is one checkout's extender: the jar, the java that runs it, and the manifests its
// Deployment (arguments, JAVA_TOOL_OPTIONS, Lease) is read from; and the checkout's agent jar.
type extenderBuild struct {
	label    string // as the log names it
	java     string
	jar      string
	agentJar string
	docs     []harness.Doc
	aot      string // how its last start used the AOT cache, for the report
	noCache  bool   // started without the AOT cache its Deployment names (run b-noaot)
}

// ownBuild is the extender of this tree (the jars the script snapshots, manifests/ as installed).
func ownBuild(env *harness.Env, docs []harness.Doc) *extenderBuild {
	return &extenderBuild{label: "this tree's", java: env.Java, jar: env.Jar("scheduler-extender"),
		agentJar: env.Jar("node-topology-agent"), docs: docs}
}

// withoutCache is build started without its AOT cache: the same jar, java and manifests.
func withoutCache(build *extenderBuild) *extenderBuild {
	return &extenderBuild{label: build.label + " (no AOT cache)", java: build.java, jar: build.jar,
		agentJar: build.agentJar, docs: build.docs, noCache: true}
}

// baselineBuild reads the -baseline checkout: its built jar and its manifests/.
func baselineBuild(dir, java string) (*extenderBuild, error) {
	jar := filepath.Join(dir, "scheduler-extender", "target", "scheduler-extender.jar")
	agent := filepath.Join(dir, "node-topology-agent", "target", "node-topology-agent.jar")
	for _, j := range []string{jar, agent} {
		if _, err := os.Stat(j); err != nil {
			return nil, fmt.Errorf("-baseline %s: a jar is missing (%w); build that checkout first", dir, err)
		}
	}
	docs, err := harness.ReadManifests(filepath.Join(dir, "manifests"))
	if err != nil {
		return nil, fmt.Errorf("-baseline %s: its manifests/: %w", dir, err)
	}
	return &extenderBuild{label: "the baseline's (" + dir + ")", java: javaExecutable(java), jar: jar,
		agentJar: agent, docs: docs}, nil
}

// publisher is the build whose agent publishes the machines' NodeTopology, which every fake node
// copies: the baseline's when there is one. An older extender refuses fields it does not know (the
// Java 17 tree's informers fail on the HCAs' "rail" this tree's agent writes), a newer one reads an
// older agent's objects, so with a baseline both extenders read the same objects.
func (b *bench) publisher() *extenderBuild {
	if b.baseline != nil {
		return b.baseline
	}
	return b.own
}

// javaExecutable is -baseline-java as a java executable: a JDK's home stands for its bin/java.
func javaExecutable(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return filepath.Join(path, "bin", "java")
	}
	return path
}

// buildOf is the extender a run measures: the baseline's for b-base, this tree's without its cache
// for b-noaot, this tree's for the others.
func (b *bench) buildOf(run string) *extenderBuild {
	switch run {
	case runBaseline:
		return b.baseline
	case runWithoutCache:
		return b.ownCold
	}
	return b.own
}

// useExtender makes build's extender the running one: when another runs, it is stopped, its Lease
// released (as a leaving leader releases it) and build's started on the same ports, so the URLs and
// the timing proxy stay. A fresh start is cold: measure warms it up again before its first run.
func (b *bench) useExtender(ctx context.Context, build *extenderBuild, run string, nodes int) error {
	if b.running == build {
		return nil
	}
	was := b.running
	ns, name, err := leaseOf(was.docs)
	if err != nil {
		return err
	}
	b.extender.Stop(5 * time.Second)
	if err := b.c.Kube.CoordinationV1().Leases(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("release Lease %s/%s: %w", ns, name, err)
	}
	t0 := time.Now()
	if err := b.startExtender(ctx, extenderStart{name: fmt.Sprintf("extender-%s-%d", run, nodes), build: build}); err != nil {
		return fmt.Errorf("start %s extender in place of %s: %w", build.label, was.label, err)
	}
	logf("%s extender started in place of %s at %d nodes (%.1f s to ready)", build.label, was.label, nodes, time.Since(t0).Seconds())
	return nil
}

// extenders names, for the report, the extender builds of the runs: their java and jar, and whether
// they had an AOT cache.
func (b *bench) extenders() string {
	s := fmt.Sprintf("\nextender: %s, %s -jar %s, %s", b.own.label, b.own.java, b.own.jar, b.own.aot)
	others := []struct {
		run   string
		build *extenderBuild
	}{{runBaseline, b.baseline}, {runWithoutCache, b.ownCold}}
	for _, o := range others {
		if o.build != nil && o.build.aot != "" { // started at least once
			s += fmt.Sprintf("\n%s: %s, %s -jar %s, %s", o.run, o.build.label, o.build.java, o.build.jar, o.build.aot)
		}
	}
	return s
}

// jvmOptions is a build's JAVA_TOOL_OPTIONS as the tool starts it: the Deployment's -XX:AOTCache
// (a path in the image) pointed at the cache of that name beside the jar when there is one
// (AOT=1 in the script copies it there). With -require-aot this tree's extender must have it.
// cache is the path used, "" when none.
func (b *bench) jvmOptions(build *extenderBuild, opts string) (out, cache string, err error) {
	shipped := aotCacheOf(opts)
	if build.noCache {
		build.aot = "without its AOT cache (run " + runWithoutCache + ")"
		if shipped != "" {
			logf("%s extender starts without the Deployment's %s", build.label, shipped)
		}
		return withoutAOTCache(opts), "", nil
	}
	required := b.o.requireAOT && build == b.own
	if shipped == "" {
		build.aot = "no -XX:AOTCache in its Deployment"
		if required {
			return "", "", fmt.Errorf("-require-aot: the extender Deployment's JAVA_TOOL_OPTIONS name no -XX:AOTCache (%s)", opts)
		}
		return opts, "", nil
	}
	local := filepath.Join(filepath.Dir(build.jar), filepath.Base(shipped))
	if _, err := os.Stat(local); err == nil {
		logf("%s extender uses the AOT cache %s in place of the Deployment's %s", build.label, local, shipped)
		build.aot = "AOT cache " + local
		return withAOTCache(opts, local), local, nil
	}
	if required {
		return "", "", fmt.Errorf("-require-aot: the extender's AOT cache %s (the Deployment's %s) is missing; AOT=1 benchmarks/run-scheduling-throughput builds it with training and copies it beside the jars", local, shipped)
	}
	build.aot = "without its AOT cache (" + shipped + " is not here)"
	logf("%s extender runs without its AOT cache: the Deployment's %s does not exist here and there is no %s (AOT=1 in the script builds and uses it)", build.label, shipped, local)
	return opts, "", nil
}

// aotCacheOf is the path a JVM options string names with -XX:AOTCache=, "" for none (the last wins,
// as in the JVM).
func aotCacheOf(opts string) string {
	path := ""
	for _, f := range strings.Fields(opts) {
		if v, ok := strings.CutPrefix(f, aotCacheFlag); ok {
			path = v
		}
	}
	return path
}

// withAOTCache is opts with every -XX:AOTCache= pointed at path.
func withAOTCache(opts, path string) string {
	fields := strings.Fields(opts)
	for i, f := range fields {
		if strings.HasPrefix(f, aotCacheFlag) {
			fields[i] = aotCacheFlag + path
		}
	}
	return strings.Join(fields, " ")
}

// withoutAOTCache is opts without any -XX:AOTCache=.
func withoutAOTCache(opts string) string {
	var kept []string
	for _, f := range strings.Fields(opts) {
		if !strings.HasPrefix(f, aotCacheFlag) {
			kept = append(kept, f)
		}
	}
	return strings.Join(kept, " ")
}

// checkAOTCache fails when the JVM refused the AOT cache the tool gave the running extender: it
// logs [error][aot] or [warning][aot] lines at start-up (a cache of another JDK build or jar) and
// runs on without it, which would be measured as if it had used it. Called once the extender is
// up (the JVM writes them before main).
func (b *bench) checkAOTCache() error {
	if b.aotCache == "" {
		return nil
	}
	raw, err := os.ReadFile(b.extender.Log)
	if err != nil {
		return err
	}
	if int64(len(raw)) < b.logStart {
		return fmt.Errorf("%s is shorter than when the extender started", b.extender.Log)
	}
	if lines := aotComplaints(string(raw[b.logStart:])); len(lines) > 0 {
		return fmt.Errorf("the JVM refused the AOT cache %s: %s (see %s)", b.aotCache, strings.Join(lines, " / "), b.extender.Log)
	}
	return nil
}

// aotComplaints are the JVM's unified-logging lines of the aot tag at warning or error level.
func aotComplaints(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "[error][aot") || strings.Contains(l, "[warning][aot") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// leaseOf is the Lease a checkout's extender replicas elect their leader on (the Deployment's
// --lease-namespace and --lease-name).
func leaseOf(docs []harness.Doc) (ns, name string, err error) {
	c, err := harness.DeploymentContainer(docs, "tandem-scheduler-extender")
	if err != nil {
		return "", "", err
	}
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--lease-namespace="); ok {
			ns = v
		}
		if v, ok := strings.CutPrefix(a, "--lease-name="); ok {
			name = v
		}
	}
	if ns == "" || name == "" {
		return "", "", fmt.Errorf("the extender Deployment's args name no --lease-namespace= and --lease-name= (%v)", c.Args)
	}
	return ns, name, nil
}
