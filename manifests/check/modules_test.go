package check

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

type pom struct {
	Modules      []string `xml:"modules>module"`
	Dependencies []struct {
		GroupID    string `xml:"groupId"`
		ArtifactID string `xml:"artifactId"`
		Scope      string `xml:"scope"`
		Type       string `xml:"type"`
	} `xml:"dependencies>dependency"`
}

func readPom(t *testing.T, path string) pom {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p pom
	if err := xml.Unmarshal(data, &p); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

// moduleRows reads the Markdown table rows whose first cell is a directory of the repository
// holding a pom.xml, as `name/`; it returns each with the backticked names of its second cell
// ("—" for none). Rows for other directories (manifests/, e2e/, docs/) are not modules.
func moduleRows(t *testing.T, repo, doc string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([a-z-]+)/` \\|([^|]*)\\|")
	name := regexp.MustCompile("`([a-z-]+)`")
	out := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(repo, m[1], "pom.xml")); err != nil {
			continue
		}
		deps := []string{}
		for _, d := range name.FindAllStringSubmatch(m[2], -1) {
			deps = append(deps, d[1])
		}
		sort.Strings(deps)
		out[m[1]] = deps
	}
	return out
}

// The module maps in README.md, docs/architecture.md and CONTRIBUTING.md name exactly the parent
// pom's modules, and architecture.md's "depends on" column is each module's compile-scope
// dependencies on other Tandem modules, as its pom declares them.
func TestModuleMapsMatchPoms(t *testing.T) {
	repo := filepath.Dir(ManifestsDir())
	root := readPom(t, filepath.Join(repo, "pom.xml"))
	modules := append([]string{}, root.Modules...)
	sort.Strings(modules)
	for _, doc := range []string{"README.md", "docs/architecture.md", "CONTRIBUTING.md"} {
		rows := moduleRows(t, repo, filepath.Join(repo, doc))
		got := []string{}
		for m := range rows {
			got = append(got, m)
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(modules, ",") {
			t.Errorf("%s module map: %v, parent pom: %v", doc, got, modules)
		}
	}
	arch := moduleRows(t, repo, filepath.Join(repo, "docs/architecture.md"))
	for _, m := range modules {
		want := []string{}
		for _, d := range readPom(t, filepath.Join(repo, m, "pom.xml")).Dependencies {
			if d.GroupID == "dev.tandem" && d.Scope != "test" && d.Scope != "provided" && d.Type == "" {
				want = append(want, d.ArtifactID)
			}
		}
		sort.Strings(want)
		if strings.Join(arch[m], ",") != strings.Join(want, ",") {
			t.Errorf("docs/architecture.md: %s depends on %v, its pom on %v", m, arch[m], want)
		}
	}
}
