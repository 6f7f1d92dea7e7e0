package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml3 "gopkg.in/yaml.v3"
)

// Every value in values.yaml carries a helm-docs comment ("# -- …" right above its key): the leaves,
// and maps or lists given as a whole. A map whose children are documented needs none itself.
func TestEveryValueHasAHelmDocsComment(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(Chart(), "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml3.Node
	if err := yaml3.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	undocumented := undocumentedValues(doc.Content[0], "")
	if len(undocumented) > 0 {
		t.Errorf("values without a '# --' comment: %v", undocumented)
	}
	// and the check finds a value without one
	var bad yaml3.Node
	_ = yaml3.Unmarshal([]byte("a:\n  # -- documented\n  b: 1\n  c: 2\n"), &bad)
	if got := undocumentedValues(bad.Content[0], ""); len(got) != 1 || got[0] != "a.c" {
		t.Errorf("the check finds %v in a file where only a.c is undocumented", got)
	}
}

func undocumentedValues(m *yaml3.Node, prefix string) []string {
	var out []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i], m.Content[i+1]
		path := strings.TrimPrefix(prefix+"."+key.Value, ".")
		documented := strings.Contains(key.HeadComment, "# --")
		if val.Kind == yaml3.MappingNode && len(val.Content) > 0 && !documented {
			out = append(out, undocumentedValues(val, path)...)
			continue
		}
		if !documented {
			out = append(out, path)
		}
	}
	return out
}
