package harness

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Doc is one YAML document of a file under manifests/.
type Doc struct {
	File string
	Kind string
	Name string
	Body []byte
	Obj  map[string]any
}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// notServed are kinds that live in manifests/ but are not API objects (they are read by tools).
var notServed = map[string]bool{"KubeSchedulerConfiguration": true, "Kustomization": true, "Component": true}

// ReadManifests reads every YAML document under dir (sorted by path), API objects and others alike.
func ReadManifests(dir string) ([]Doc, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var docs []Doc
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, part := range docSep.Split(string(raw), -1) {
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(part), &obj); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if len(obj) == 0 {
				continue
			}
			kind, _ := obj["kind"].(string)
			name := ""
			if md, ok := obj["metadata"].(map[string]any); ok {
				name, _ = md["name"].(string)
			}
			docs = append(docs, Doc{File: f, Kind: kind, Name: name, Body: []byte(part), Obj: obj})
		}
	}
	return docs, nil
}

// APIObjects keeps the documents the API server serves (drops kustomization files, scheduler configs).
func APIObjects(docs []Doc) []Doc {
	var out []Doc
	for _, d := range docs {
		if filepath.Base(d.File) == "kustomization.yaml" || notServed[d.Kind] || d.Kind == "" {
			continue
		}
		if av, _ := d.Obj["apiVersion"].(string); strings.HasPrefix(av, "kustomize.config.k8s.io") {
			continue
		}
		out = append(out, d)
	}
	return out
}

// Kubectl runs the cached kubectl against the admin kubeconfig with stdin and returns its output.
func (e *Env) Kubectl(stdin []byte, args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(e.Bin, "kubectl"), append([]string{"--kubeconfig", e.Kubeconfig}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Join concatenates documents into one multi-document YAML stream.
func Join(docs []Doc) []byte {
	var b bytes.Buffer
	for _, d := range docs {
		b.WriteString("---\n")
		b.Write(d.Body)
		b.WriteString("\n")
	}
	return b.Bytes()
}
