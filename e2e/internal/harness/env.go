package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Env is what e2e/run and e2e/control-plane hand to the scenarios.
type Env struct {
	Repo       string // the repository root
	Dir        string // this run's state directory (certificates, kubeconfigs, logs)
	Bin        string // cached upstream binaries (kube-apiserver, kube-scheduler, kubectl, etcd)
	Kubeconfig string // admin kubeconfig
	APIServer  string // https://127.0.0.1:PORT
	CA         string // cluster CA file
	SchedKC    string // kubeconfig of system:kube-scheduler
	Java       string // java executable
}

// LoadEnv reads the environment e2e/run sets; it fails when a scenario is started some other way.
func LoadEnv() (*Env, error) {
	e := &Env{
		Dir:        os.Getenv("E2E_DIR"),
		Bin:        os.Getenv("E2E_BIN"),
		Kubeconfig: os.Getenv("KUBECONFIG"),
		APIServer:  os.Getenv("E2E_APISERVER"),
		CA:         os.Getenv("E2E_CA"),
		SchedKC:    os.Getenv("E2E_SCHEDULER_KUBECONFIG"),
		Java:       os.Getenv("JAVA"),
	}
	if e.Dir == "" || e.Bin == "" || e.Kubeconfig == "" || e.APIServer == "" {
		return nil, fmt.Errorf("E2E_DIR, E2E_BIN, KUBECONFIG and E2E_APISERVER must be set: run the scenarios with e2e/run")
	}
	if e.Java == "" {
		e.Java = "java"
	}
	_, file, _, _ := runtime.Caller(0)
	e.Repo = filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
	if r := os.Getenv("E2E_REPO"); r != "" {
		e.Repo = r
	}
	return e, nil
}

// Logs is the directory every component writes its log into.
func (e *Env) Logs() string { return filepath.Join(e.Dir, "logs") }

// Path joins p onto the repository root.
func (e *Env) Path(p ...string) string { return filepath.Join(append([]string{e.Repo}, p...)...) }

// Jar is the snapshot of module's runnable jar taken when the run started (E2E_JARS), or the
// module's target/ jar.
func (e *Env) Jar(module string) string {
	if d := os.Getenv("E2E_JARS"); d != "" {
		return filepath.Join(d, module+".jar")
	}
	return e.Path(module, "target", module+".jar")
}

// Testdata is e2e/testdata/<name>.
func (e *Env) Testdata(name string) string { return e.Path("e2e", "testdata", name) }

// Topology is test-fixtures' topology file name (an hwloc export, or nccl-topo/<file>), read from
// the repository at run time: the Java tests and this harness share the one copy.
func (e *Env) Topology(name string) string {
	return e.Path("test-fixtures", "src", "main", "resources", "topologies", name)
}
