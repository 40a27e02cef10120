package app

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"

	"github.com/barrage-dev/barrage/services/api/internal/remotewrite"
)

// grafanaSchemaVersion is the dashboard schema version of deploy/grafana
// (Grafana 10.3 and later read it).
const grafanaSchemaVersion = 39

// dashboard is the part of a Grafana dashboard the check reads.
type dashboard struct {
	UID           string `json:"uid"`
	Title         string `json:"title"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		ID      int    `json:"id"`
		Type    string `json:"type"`
		Title   string `json:"title"`
		GridPos struct {
			H, W, X, Y int
		} `json:"gridPos"`
		Targets []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// exportedNames reads the metric names of /metrics pages: each family,
// with _bucket, _sum and _count for histograms and _sum and _count for
// summaries.
func exportedNames(pages ...string) map[string]bool {
	names := map[string]bool{}
	for _, page := range pages {
		sc := bufio.NewScanner(strings.NewReader(page))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 4 || f[0] != "#" || f[1] != "TYPE" {
				continue
			}
			names[f[2]] = true
			switch f[3] {
			case "histogram":
				names[f[2]+"_bucket"], names[f[2]+"_sum"], names[f[2]+"_count"] = true, true, true
			case "summary":
				names[f[2]+"_sum"], names[f[2]+"_count"] = true, true
			}
		}
	}
	return names
}

// grafanaVariable matches a variable reference in a panel query.
var grafanaVariable = regexp.MustCompile(`\$\{?(\w+)\}?`)

// checkDashboards reads every dashboard of deploy/grafana: each is a
// dashboard of schema version 39 with panels on the 24-column grid, each
// panel query parses with Prometheus's PromQL parser once its variables are
// given values, uses only variables the dashboard defines (or Grafana's
// own), and names only metrics in exported or sent by remote write.
func checkDashboards(t *testing.T, exported map[string]bool) {
	t.Helper()
	for _, n := range remotewrite.Names() {
		exported[n] = true
	}
	files, err := filepath.Glob("../../../../deploy/grafana/*.json")
	if err != nil || len(files) < 2 {
		t.Fatalf("dashboards: %v (%d files)", err, len(files))
	}
	p := parser.NewParser(parser.Options{})
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var d dashboard
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if d.UID == "" || d.Title == "" || d.SchemaVersion != grafanaSchemaVersion || len(d.Panels) == 0 {
			t.Errorf("%s: uid %q, title %q, schemaVersion %d, %d panels", file, d.UID, d.Title, d.SchemaVersion, len(d.Panels))
		}
		vars := map[string]bool{"__rate_interval": true, "__interval": true, "__range": true}
		for _, v := range d.Templating.List {
			vars[v.Name] = true
		}
		ids := map[int]bool{}
		for _, panel := range d.Panels {
			g := panel.GridPos
			if ids[panel.ID] || panel.Type == "" || panel.Title == "" || g.W <= 0 || g.H <= 0 || g.X < 0 || g.X+g.W > 24 || len(panel.Targets) == 0 {
				t.Errorf("%s: panel %d %q (%s) at %+v with %d queries", file, panel.ID, panel.Title, panel.Type, g, len(panel.Targets))
			}
			ids[panel.ID] = true
			for _, tg := range panel.Targets {
				for _, m := range grafanaVariable.FindAllStringSubmatch(tg.Expr, -1) {
					if !vars[m[1]] {
						t.Errorf("%s: panel %q uses $%s, which the dashboard does not define", file, panel.Title, m[1])
					}
				}
				q := strings.NewReplacer("$__rate_interval", "1m", "$__interval", "1m", "$__range", "1h").Replace(tg.Expr)
				q = grafanaVariable.ReplaceAllString(q, "value")
				expr, err := p.ParseExpr(q)
				if err != nil {
					t.Errorf("%s: panel %q query %s: %v", file, panel.Title, tg.RefID, err)
					continue
				}
				for _, sel := range parser.ExtractSelectors(expr) {
					for _, m := range sel {
						if m.Name == "__name__" && !exported[m.Value] {
							t.Errorf("%s: panel %q queries %s, which Barrage does not export", file, panel.Title, m.Value)
						}
					}
				}
			}
		}
	}
}
