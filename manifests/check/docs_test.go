package check

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The operator documents written against these manifests.
var operatorDocs = []string{"install.md", "configuration.md", "operations.md", "troubleshooting.md", "architecture.md", "decisions.md"}

// Every manifests/ path the operator docs name exists, every `kubectl apply|delete -k DIR` in
// their shell blocks renders with kustomize, and every `kubectl apply -f FILE` decodes strictly.
// (Running them against an API server is the end-to-end harness's part.)
func TestDocCommandsUseRealManifests(t *testing.T) {
	repo := filepath.Dir(ManifestsDir())
	pathRef := regexp.MustCompile(`(?:^|[^/A-Za-z0-9_.-])(manifests/[A-Za-z0-9_./-]*)`)
	kustomize := regexp.MustCompile(`^kubectl (?:apply|delete) -k (\S+)`)
	file := regexp.MustCompile(`^kubectl apply -f (manifests/\S+)`)
	commands := 0
	for _, doc := range operatorDocs {
		f, err := os.Open(filepath.Join(repo, "docs", doc))
		if err != nil {
			t.Fatal(err)
		}
		inShell := false
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			for _, m := range pathRef.FindAllStringSubmatch(text, -1) {
				ref := strings.TrimRight(m[1], ".,/")
				if _, err := os.Stat(filepath.Join(repo, ref)); err != nil {
					t.Errorf("docs/%s:%d names %s, which does not exist", doc, line, ref)
				}
			}
			trimmed := strings.TrimSpace(text)
			if strings.HasPrefix(trimmed, "```") {
				inShell = trimmed == "```sh"
				continue
			}
			if !inShell {
				continue
			}
			if m := kustomize.FindStringSubmatch(trimmed); m != nil {
				commands++
				rel := strings.TrimPrefix(strings.TrimSuffix(m[1], "/"), "manifests")
				if _, err := Render(strings.TrimPrefix(rel, "/")); err != nil {
					t.Errorf("docs/%s:%d %q: %v", doc, line, trimmed, err)
				}
			}
			if m := file.FindStringSubmatch(trimmed); m != nil {
				commands++
				rel := strings.TrimPrefix(m[1], "manifests/")
				if _, err := os.Stat(filepath.Join(ManifestsDir(), rel)); err != nil {
					t.Errorf("docs/%s:%d %q: %v", doc, line, trimmed, err)
				}
			}
		}
		f.Close()
	}
	if commands < 5 {
		t.Errorf("found only %d kubectl apply/delete commands in the docs; the parser is broken", commands)
	}
}
