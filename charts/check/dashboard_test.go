package check

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Grafana dashboard exists once, in manifests/monitoring (kustomize's load restrictor refuses a
// file outside its kustomization, Helm's .Files reads only inside the chart): the chart's
// files/tandem-dashboard.json is a symbolic link to it. Helm renders that file's content into the
// ConfigMap, and `helm package` archives the content as a plain file, so a packaged chart needs no link.
func TestDashboardIsOneFile(t *testing.T) {
	link := filepath.Join(Chart(), "files", "tandem-dashboard.json")
	file := filepath.Join(Repo(), "manifests", "monitoring", "tandem-dashboard.json")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is not a symbolic link (%v): the dashboard must exist once, as %s", link, err, file)
	}
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(file); target != want {
		t.Fatalf("%s points at %s, want %s", link, target, want)
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	out, err := Template(nil, "--set", "metrics.dashboard.enabled=true")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := SplitYAML(out)
	if err != nil {
		t.Fatal(err)
	}
	cm := Find(objs, "ConfigMap", "tandem-dashboard")
	if cm == nil {
		t.Fatal("no ConfigMap tandem-dashboard with metrics.dashboard.enabled=true")
	}
	// the template writes the file as a `|-` block: its final newline goes
	if got, _ := cm["data"].(map[string]any)["tandem-dashboard.json"].(string); got != strings.TrimRight(string(want), "\n") {
		t.Errorf("the rendered ConfigMap's tandem-dashboard.json differs from %s", file)
	}

	dir := t.TempDir()
	if _, err := Helm("package", Chart(), "--destination", dir); err != nil {
		t.Fatal(err)
	}
	archives, _ := filepath.Glob(filepath.Join(dir, "tandem-*.tgz"))
	if len(archives) != 1 {
		t.Fatalf("helm package wrote %v", archives)
	}
	hdr, body := archived(t, archives[0], "tandem/files/tandem-dashboard.json")
	if hdr == nil {
		t.Fatalf("%s has no tandem/files/tandem-dashboard.json", archives[0])
	}
	if hdr.Typeflag != tar.TypeReg || string(body) != string(want) {
		t.Errorf("the packaged tandem/files/tandem-dashboard.json is not %s as a plain file (type %q, %d bytes)",
			file, hdr.Typeflag, len(body))
	}
}

// archived reads one entry of a .tgz; nil when it has none of that name.
func archived(t *testing.T, path, name string) (*tar.Header, []byte) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	r := tar.NewReader(z)
	for {
		hdr, err := r.Next()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Name == name {
			body, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			return hdr, body
		}
	}
}
