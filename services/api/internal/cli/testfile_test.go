package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/client"
)

func TestDecodeTestDocs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		yaml      string
		wantNames []string
		wantLines []int
		wantErr   string
	}{
		{
			name:      "single",
			yaml:      "name: a\nproject: web\nlabels: {team: web}\nthresholds: ['p(99) < 250ms']\nspec: {url: 'http://t/', qps: 10}\nschedule: '*/15 * * * *'\ntimezone: Europe/Paris\nbaseline_last: 5\n",
			wantNames: []string{"a"}, wantLines: []int{1},
		},
		{
			name:      "list",
			yaml:      "- name: a\n  spec: {url: 'http://t/'}\n- name: b\n  spec:\n    url: http://t/b\n",
			wantNames: []string{"a", "b"}, wantLines: []int{1, 3},
		},
		{
			name:      "several documents",
			yaml:      "name: a\nspec: {url: 'http://t/'}\n---\n- name: b\n  spec: {url: 'http://t/'}\n- name: c\n  spec: {url: 'http://t/'}\n---\n",
			wantNames: []string{"a", "b", "c"}, wantLines: []int{1, 4, 6},
		},
		{name: "unknown key", yaml: "name: a\nspec: {url: 'http://t/'}\nthreshold: ['count > 0']\n", wantErr: `test 1: line 3: unknown key "threshold"`},
		{name: "unknown key in a list", yaml: "- name: a\n  spec: {url: 'http://t/'}\n- name: b\n  specs: {}\n", wantErr: `test 2: line 4: unknown key "specs"`},
		{name: "missing name", yaml: "spec: {url: 'http://t/'}\n", wantErr: "test 1: line 1: name is required"},
		{name: "missing spec", yaml: "name: a\n", wantErr: "spec is required"},
		{name: "not a mapping", yaml: "- just a string\n", wantErr: "must be a mapping"},
		{name: "empty", yaml: "", wantErr: "no test definitions"},
		{name: "bad yaml", yaml: "name: [a\n", wantErr: "line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			docs, err := decodeTestDocs([]byte(tt.yaml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != len(tt.wantNames) {
				t.Fatalf("%d tests, want %d", len(docs), len(tt.wantNames))
			}
			for i, d := range docs {
				if d.Name != tt.wantNames[i] || d.Index != i+1 || d.Line != tt.wantLines[i] || d.Spec["url"] == nil {
					t.Errorf("test %d = %+v, want name %s at line %d", i, d, tt.wantNames[i], tt.wantLines[i])
				}
			}
		})
	}
}

// storedTest returns the test as the API would show it after storing d.
func storedTest(t *testing.T, d *testDoc) client.Test {
	t.Helper()
	raw, err := json.Marshal(d.Spec)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	th := d.Thresholds
	if th == nil {
		th = []string{}
	}
	labels := client.Labels{}
	for k, v := range d.Labels {
		labels[k] = v
	}
	out := client.Test{Name: d.Name, Description: d.Description, Spec: sp.Redacted(), Thresholds: th, Labels: labels}
	if d.BaselineLast != 0 {
		out.BaselineLast = ptr(d.BaselineLast)
	}
	if d.Schedule != "" { // the API stores the zone, UTC by default
		out.Schedule, out.Timezone = &d.Schedule, ptr(zoneOrUTC(d.Timezone))
	}
	return out
}

func TestSameTest(t *testing.T) {
	t.Parallel()
	stored := testDoc{Name: "a", Labels: map[string]string{"team": "web"}, Thresholds: []string{"p(99) < 250ms"}, Schedule: "0 3 * * *",
		Spec: map[string]any{"url": "http://t/", "qps": 10, "headers": []any{"Authorization: Bearer s3cret"}}}
	tests := []struct {
		name string
		edit func(d *testDoc)
		want bool
	}{
		{"identical", func(*testDoc) {}, true},
		{"a default spelled out", func(d *testDoc) { d.Spec["connections"] = 8; d.Spec["duration"] = "5s" }, true},
		{"a duration written differently", func(d *testDoc) { d.Spec["duration"] = 5 }, true},
		{"only the secret changed (the API never shows it)", func(d *testDoc) { d.Spec["headers"] = []any{"Authorization: Bearer other"} }, true},
		{"qps", func(d *testDoc) { d.Spec["qps"] = 20 }, false},
		{"a threshold", func(d *testDoc) { d.Thresholds = []string{"p(99) < 300ms"} }, false},
		{"threshold order", func(d *testDoc) { d.Thresholds = []string{"count > 0", "p(99) < 250ms"} }, false},
		{"a label", func(d *testDoc) { d.Labels = map[string]string{"team": "api"} }, false},
		{"no labels", func(d *testDoc) { d.Labels = nil }, false},
		{"description", func(d *testDoc) { d.Description = "new" }, false},
		{"the schedule", func(d *testDoc) { d.Schedule = "0 4 * * *" }, false},
		{"no schedule", func(d *testDoc) { d.Schedule = "" }, false},
		{"the zone", func(d *testDoc) { d.Timezone = "Europe/Paris" }, false},
		{"a pooled baseline", func(d *testDoc) { d.BaselineLast = 5 }, false},
		{"UTC spelled out", func(d *testDoc) { d.Timezone = "UTC" }, true},
		{"a spec the API would refuse", func(d *testDoc) { d.Spec["qps"] = -1 }, false},
		{"an unknown spec field", func(d *testDoc) { d.Spec["rate"] = 5 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cur := storedTest(t, &stored)
			d := stored
			d.Spec = map[string]any{}
			for k, v := range stored.Spec {
				d.Spec[k] = v
			}
			tt.edit(&d)
			if got := sameTest(&d, &cur); got != tt.want {
				t.Errorf("sameTest = %v, want %v", got, tt.want)
			}
		})
	}
	empty := testDoc{Name: "b", Spec: map[string]any{"url": "http://t/"}}
	cur := storedTest(t, &empty)
	if !sameTest(&empty, &cur) {
		t.Error("no labels and thresholds in the file vs the API's empty ones: want the same")
	}
}

func TestFindByName(t *testing.T) {
	t.Parallel()
	list := []client.Test{{Name: "a"}, {Name: "b"}, {Name: "b"}}
	if got, err := findByName(list, "a"); err != nil || got != &list[0] {
		t.Errorf("a: %v, %v", got, err)
	}
	if got, err := findByName(list, "c"); err != nil || got != nil {
		t.Errorf("c: %v, %v; want none", got, err)
	}
	if _, err := findByName(list, "b"); err == nil || !strings.Contains(err.Error(), "several tests") {
		t.Errorf("b: %v, want a conflict", err)
	}
}
