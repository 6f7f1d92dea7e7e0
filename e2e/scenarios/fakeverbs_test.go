//go:build e2e && !k8s134

package scenarios

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fakeVerbs is how a node daemon reaches the stand-in libibverbs and libmlx5 (e2e/tools/fakeibverbs):
// JNA's library path names its directory, and the layout file says what it answers for this node.
type fakeVerbs struct{ dir, layout string }

// jvm is the JVM option that makes JNA's Native.load("ibverbs") and NativeLibrary.getInstance("mlx5")
// find the stand-in before the system's libraries.
func (f *fakeVerbs) jvm() []string {
	if f == nil { // the machine's own libraries
		return nil
	}
	return []string{"-Djna.library.path=" + f.dir}
}

// env names the layout the stand-in answers from.
func (f *fakeVerbs) env() []string {
	if f == nil {
		return nil
	}
	return []string{"FAKE_IBVERBS_LAYOUT=" + f.layout}
}

// startAgentWith is startAgentOn with the stand-in libraries for the agent's JNA bindings.
func (k *cluster) startAgentWith(node string, libs *fakeVerbs, discovery ...string) error {
	return k.startAgentJVM(node, libs.jvm(), libs.env(), discovery...)
}

// verbsLayout is where the node's layout for the stand-in is written (MachineTrees' third argument).
func verbsLayout(node string) string { return filepath.Join(cl.env.Dir, "verbs-"+node+".json") }

// fakeIbverbs builds the stand-in as libibverbs.so, once per run, with libmlx5.so a symlink to it: the
// names JNA maps "ibverbs" and "mlx5" to, and one file, so the dynamic loader gives both one handle
// (two Go runtimes in one process do not mix). It returns the node's way to it.
func fakeIbverbs(t *testing.T, node string) *fakeVerbs {
	t.Helper()
	dir := filepath.Join(cl.env.Dir, "fakeibverbs")
	lib := filepath.Join(dir, "libibverbs.so")
	if _, err := os.Stat(lib); err != nil {
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", lib, "./tools/fakeibverbs")
		cmd.Dir = cl.env.Path("e2e")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building the fake libibverbs: %v\n%s", err, b)
		}
		if err := os.Symlink("libibverbs.so", filepath.Join(dir, "libmlx5.so")); err != nil {
			t.Fatal(err)
		}
	}
	return &fakeVerbs{dir: dir, layout: verbsLayout(node)}
}
