package check

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/yaml"
)

// ExportedMetrics reads the metric tables of docs/operations.md ("## Metrics"), which the Java test
// ConfigurationDocTest#metricNames keeps equal to the metrics the extender and the agent export: the
// series names Prometheus stores (a histogram's _bucket, _sum, _count and the extender's _max).
func ExportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	section := docSection(t, "operations.md", "## Metrics")
	row := regexp.MustCompile("(?m)^\\| `(tandem_[a-z_]+)` \\| ([a-z]+)")
	out := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		if m[2] == "histogram" {
			for _, s := range []string{"_bucket", "_sum", "_count", "_max"} {
				out[m[1]+s] = true
			}
			continue
		}
		out[m[1]] = true
	}
	if len(out) < 12 {
		t.Fatalf("found only %d metrics in docs/operations.md's tables: %v", len(out), out)
	}
	return out
}

func docSection(t *testing.T, doc, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Repo(), "docs", doc))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("docs/%s has no %q", doc, heading)
	}
	s = s[i+len(heading)+2:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

// MetricNames parses a PromQL expression with Prometheus' own parser and returns the metric names its
// selectors name.
func MetricNames(expr string) ([]string, error) {
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			name := vs.Name
			if name == "" {
				for _, m := range vs.LabelMatchers {
					if m.Name == "__name__" {
						name = m.Value
					}
				}
			}
			names = append(names, name)
		}
		return nil
	})
	return names, nil
}

// checkExpr parses expr and returns an error when it does not parse or names a metric not exported.
func checkExpr(expr string, exported map[string]bool) error {
	names, err := MetricNames(expr)
	if err != nil {
		return fmt.Errorf("%q does not parse: %w", expr, err)
	}
	if len(names) == 0 {
		return fmt.Errorf("%q names no metric", expr)
	}
	for _, n := range names {
		if !exported[n] {
			return fmt.Errorf("%q names %s, which the code does not export (docs/operations.md's tables)", expr, n)
		}
	}
	return nil
}

type rule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

type ruleGroups struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []rule `json:"rules"`
	} `json:"groups"`
}

func loadRules(t *testing.T) (ruleGroups, map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Chart(), "files", "prometheus-rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var g ruleGroups
	if err := yaml.UnmarshalStrict(b, &g); err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := yaml.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	return g, generic
}

// Every alert expression parses with Prometheus' PromQL parser and names only exported metrics; every
// `for` is a Prometheus duration; every alert has a severity, a summary and a description.
func TestAlertRulesParseAndUseExportedMetrics(t *testing.T) {
	exported := ExportedMetrics(t)
	g, _ := loadRules(t)
	n := 0
	for _, grp := range g.Groups {
		for _, r := range grp.Rules {
			n++
			if err := checkExpr(r.Expr, exported); err != nil {
				t.Errorf("alert %s: %v", r.Alert, err)
			}
			if _, err := model.ParseDuration(r.For); err != nil {
				t.Errorf("alert %s: for %q: %v", r.Alert, r.For, err)
			}
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %s lacks a severity, summary or description", r.Alert)
			}
		}
	}
	if n < 9 {
		t.Errorf("%d alert rules, want the 9 of docs/operations.md", n)
	}
}

// The checker rejects what it must: an expression that does not parse, and one naming a metric the
// code does not export.
func TestExpressionCheckerCatchesErrors(t *testing.T) {
	exported := ExportedMetrics(t)
	for expr, want := range map[string]string{
		"sum(tandem_extender_ready) <":                                  "does not parse",
		"rate(tandem_extender_binds_total[5m)":                          "does not parse",
		"sum(tandem_extender_plans_total) > 0":                          "names tandem_extender_plans_total, which the code does not export",
		"histogram_quantile(0.9, rate(tandem_pods_audited_bucket[5m]))": "names tandem_pods_audited_bucket",
		"vector(1)": "names no metric",
	} {
		err := checkExpr(expr, exported)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("checkExpr(%q) = %v, want an error containing %q", expr, err, want)
		}
	}
	if err := checkExpr(`sum by (le) (rate(tandem_extender_request_seconds_bucket{verb="bind"}[5m]))`, exported); err != nil {
		t.Errorf("a valid expression was rejected: %v", err)
	}
}

// manifests/monitoring/prometheusrule.yaml carries the chart's rules (the same groups), and
// docs/operations.md's alert table lists the same alerts with the same expressions and durations.
func TestRulesAgreeWithManifestsAndDocs(t *testing.T) {
	g, generic := loadRules(t)
	b, err := os.ReadFile(filepath.Join(Repo(), "manifests", "monitoring", "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var pr map[string]any
	if err := yaml.Unmarshal(b, &pr); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pr["spec"], generic) {
		t.Error("manifests/monitoring/prometheusrule.yaml's spec differs from charts/tandem/files/prometheus-rules.yaml")
	}
	table := docSection(t, "operations.md", "## Metrics")
	row := regexp.MustCompile("(?m)^\\| (Tandem[A-Za-z]+) \\| `(.+?)` \\| ([0-9a-z]+) \\|")
	docs := map[string][2]string{}
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		docs[m[1]] = [2]string{strings.ReplaceAll(m[2], `\|`, "|"), m[3]}
	}
	var inRules, inDocs []string
	for _, grp := range g.Groups {
		for _, r := range grp.Rules {
			inRules = append(inRules, r.Alert)
			d, ok := docs[r.Alert]
			if !ok {
				continue
			}
			if d[0] != r.Expr || d[1] != r.For {
				t.Errorf("alert %s: docs say `%s` for %s, the rules `%s` for %s", r.Alert, d[0], d[1], r.Expr, r.For)
			}
		}
	}
	for a := range docs {
		inDocs = append(inDocs, a)
	}
	sort.Strings(inRules)
	sort.Strings(inDocs)
	if !reflect.DeepEqual(inRules, inDocs) {
		t.Errorf("alerts in the rules %v, in docs/operations.md %v", inRules, inDocs)
	}
}

// The dashboard: valid JSON with unique panel ids and a Prometheus datasource variable; every query
// parses with the PromQL parser (Grafana's $__rate_interval and $node replaced by what Grafana
// substitutes) and names only exported metrics. (That the chart ships this very file:
// TestDashboardIsOneFile.)
func TestDashboard(t *testing.T) {
	exported := ExportedMetrics(t)
	path := filepath.Join(Repo(), "manifests", "monitoring", "tandem-dashboard.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID        string `json:"uid"`
		Templating struct {
			List []struct {
				Name, Type string
			} `json:"list"`
		} `json:"templating"`
		Panels []struct {
			ID      int                       `json:"id"`
			Type    string                    `json:"type"`
			Title   string                    `json:"title"`
			GridPos *struct{ X, Y, W, H int } `json:"gridPos"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v.Type
	}
	if vars["datasource"] != "datasource" {
		t.Error("no datasource variable")
	}
	subst := strings.NewReplacer("$__rate_interval", "5m", "$node", ".*")
	ids := map[int]bool{}
	queries := 0
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.GridPos == nil || p.GridPos.W == 0 {
			t.Errorf("panel %q has no gridPos", p.Title)
		}
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			queries++
			if err := checkExpr(subst.Replace(tg.Expr), exported); err != nil {
				t.Errorf("panel %q: %v", p.Title, err)
			}
		}
	}
	if queries < 15 {
		t.Errorf("%d queries in the dashboard", queries)
	}
}
