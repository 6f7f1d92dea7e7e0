package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const shippedOptions = "-XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:AOTCache=/opt/tandem/scheduler-extender.aot -XX:MaxRAMPercentage=70"

func TestAOTCacheOfAndWithAOTCache(t *testing.T) {
	if got := aotCacheOf(shippedOptions); got != "/opt/tandem/scheduler-extender.aot" {
		t.Errorf("aotCacheOf(shipped) = %q", got)
	}
	if got := aotCacheOf("-XX:+UseSerialGC -Xss512k"); got != "" {
		t.Errorf("aotCacheOf(no cache) = %q, want \"\"", got)
	}
	want := "-XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:AOTCache=/tmp/j/scheduler-extender.aot -XX:MaxRAMPercentage=70"
	if got := withAOTCache(shippedOptions, "/tmp/j/scheduler-extender.aot"); got != want {
		t.Errorf("withAOTCache:\n got %s\nwant %s", got, want)
	}
}

// The Deployment's cache path is pointed at the file of its name beside the jar when it is there;
// when it is not, the options stay as shipped (the JVM warns and starts without it) unless
// -require-aot, which fails and says how to build it.
func TestJVMOptionsUsesTheCacheBesideTheJar(t *testing.T) {
	dir := t.TempDir()
	own := &extenderBuild{label: "this tree's", jar: filepath.Join(dir, "scheduler-extender.jar")}
	b := &bench{o: &options{}, own: own}

	opts, cache, err := b.jvmOptions(own, shippedOptions)
	if err != nil || cache != "" || opts != shippedOptions {
		t.Fatalf("no cache beside the jar: got %q, %q, %v; want the shipped options unchanged", opts, cache, err)
	}
	b.o.requireAOT = true
	if _, _, err := b.jvmOptions(own, shippedOptions); err == nil || !strings.Contains(err.Error(), "AOT=1") {
		t.Fatalf("-require-aot without the cache: got %v, want an error naming AOT=1", err)
	}
	if _, _, err := b.jvmOptions(own, "-XX:+UseSerialGC"); err == nil {
		t.Fatal("-require-aot with a Deployment that names no cache: want an error")
	}

	local := filepath.Join(dir, "scheduler-extender.aot")
	if err := os.WriteFile(local, []byte("cache"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts, cache, err = b.jvmOptions(own, shippedOptions)
	if err != nil || cache != local || aotCacheOf(opts) != local {
		t.Fatalf("cache beside the jar: got %q, %q, %v; want -XX:AOTCache=%s", opts, cache, err, local)
	}
}

// -require-aot asks for this tree's cache only: a baseline whose Deployment names none (the Java
// 17 tree) starts as it ships.
func TestJVMOptionsRequiresOnlyThisTreesCache(t *testing.T) {
	base := &extenderBuild{label: "the baseline's", jar: filepath.Join(t.TempDir(), "scheduler-extender.jar")}
	b := &bench{o: &options{requireAOT: true}, own: &extenderBuild{}, baseline: base}
	if opts, cache, err := b.jvmOptions(base, "-XX:+UseSerialGC"); err != nil || cache != "" || opts != "-XX:+UseSerialGC" {
		t.Fatalf("baseline without a cache: got %q, %q, %v", opts, cache, err)
	}
}

// Run b-noaot starts this tree's jar without its cache, even when the cache lies beside the jar and
// -require-aot asks for it in run b.
func TestJVMOptionsWithoutCache(t *testing.T) {
	dir := t.TempDir()
	own := &extenderBuild{label: "this tree's", jar: filepath.Join(dir, "scheduler-extender.jar")}
	if err := os.WriteFile(filepath.Join(dir, "scheduler-extender.aot"), []byte("cache"), 0o644); err != nil {
		t.Fatal(err)
	}
	cold := withoutCache(own)
	b := &bench{o: &options{requireAOT: true}, own: own, ownCold: cold}
	if b.buildOf(runWithoutCache) != cold || b.buildOf("b") != own {
		t.Fatalf("buildOf: %s must run this tree's jar without its cache, b with it", runWithoutCache)
	}
	opts, cache, err := b.jvmOptions(cold, shippedOptions+" -XX:AOTCache=/opt/other.aot")
	if want := "-XX:+UseSerialGC -XX:+UseCompactObjectHeaders -XX:MaxRAMPercentage=70"; err != nil || cache != "" || opts != want {
		t.Fatalf("without its cache: got %q, %q, %v; want %q", opts, cache, err, want)
	}
	if cold.jar != own.jar || cold.java != own.java || !strings.Contains(cold.aot, "without") {
		t.Fatalf("the build without its cache: %+v", cold)
	}
	if _, cache, err := b.jvmOptions(own, shippedOptions); err != nil || cache == "" {
		t.Fatalf("run b still uses the cache beside the jar: got %q, %v", cache, err)
	}
}

func TestAOTComplaints(t *testing.T) {
	log := strings.Join([]string{
		"Picked up JAVA_TOOL_OPTIONS: -XX:AOTCache=/x.aot",
		"[0.007s][error][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.",
		"[0.008s][warning][aot] The AOT cache was created by a different version or build of HotSpot",
		"[0.012s][info][aot] Opened AOT cache /x.aot.",
		"12:00:00 INFO extender ready",
	}, "\n")
	want := []string{
		"[0.007s][error][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.",
		"[0.008s][warning][aot] The AOT cache was created by a different version or build of HotSpot",
	}
	if got := aotComplaints(log); !reflect.DeepEqual(got, want) {
		t.Errorf("aotComplaints = %q, want %q", got, want)
	}
}

func TestJavaExecutable(t *testing.T) {
	home := t.TempDir()
	if got := javaExecutable(home); got != filepath.Join(home, "bin", "java") {
		t.Errorf("javaExecutable(JDK home) = %q", got)
	}
	if got := javaExecutable("/usr/bin/java"); got != "/usr/bin/java" {
		t.Errorf("javaExecutable(executable) = %q", got)
	}
}

// With a b-base run the table has a ÷ b-base column: b's row then reads this tree against the
// baseline at that size.
func TestRenderDividesByTheBaseline(t *testing.T) {
	t0 := time.Unix(0, 0)
	run := func(name string, seconds int) result {
		return result{run: name, nodes: 1000, qps: "qps 50, burst 100",
			device: span{pods: 400, first: t0, last: t0.Add(time.Duration(seconds) * time.Second)}}
	}
	table := render([]result{run("a", 10), run("b", 20), run(runBaseline, 25)}, "tls")
	if !strings.Contains(table, "| ÷ a | ÷ f | ÷ b-base |") {
		t.Fatalf("no ÷ b-base column:\n%s", table)
	}
	if !strings.Contains(table, "| 1000 | b | 400 | 20.0 | 20.0 | 0.50 |  | 1.25 |") {
		t.Errorf("b's row does not read 0.50 of a and 1.25 of b-base:\n%s", table)
	}
	if plain := render([]result{run("a", 10), run("b", 20)}, "tls"); strings.Contains(plain, "b-base") {
		t.Errorf("a table without b-base has its column:\n%s", plain)
	}
}
