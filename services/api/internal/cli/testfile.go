package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/client"
)

// testDoc is one test definition of a `barrage tests apply` file.
type testDoc struct {
	// Name identifies the test within its project.
	Name string `yaml:"name"`
	// Project is the project id or slug; -project or the token's when empty.
	Project string `yaml:"project"`
	// Description is free text.
	Description string `yaml:"description"`
	// Labels, Thresholds and Spec are as in TestCreate.
	Labels     map[string]string `yaml:"labels"`
	Thresholds []string          `yaml:"thresholds"`
	Spec       map[string]any    `yaml:"spec"`
	// Schedule and Timezone are the test's cron schedule and its zone.
	Schedule string `yaml:"schedule"`
	Timezone string `yaml:"timezone"`
	// BaselineLast pools the test's last N passing runs as its runs'
	// baseline; 0 for the newest one.
	BaselineLast int `yaml:"baseline_last"`
	// Index is the test's 1-based position in the file, Line its line.
	Index, Line int `yaml:"-"`
}

// docKeys returns the keys a test definition may have.
func docKeys() []string {
	return []string{"name", "project", "description", "labels", "thresholds", "spec", "schedule", "timezone", "baseline_last"}
}

// decodeTestDocs reads the test definitions of a file: one mapping, a
// list of them, or several YAML documents of either. An unknown key or a
// missing name or spec is an error naming its line.
func decodeTestDocs(data []byte) ([]testDoc, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []testDoc
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		root := &n
		if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
			root = root.Content[0]
		}
		items := []*yaml.Node{root}
		if root.Kind == yaml.SequenceNode {
			items = root.Content
		}
		for _, it := range items {
			if it.Kind == 0 || (it.Kind == yaml.ScalarNode && it.Tag == "!!null") {
				continue // an empty document
			}
			d, err := decodeTestDoc(it)
			if err != nil {
				return nil, fmt.Errorf("test %d: %w", len(out)+1, err)
			}
			d.Index = len(out) + 1
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no test definitions")
	}
	return out, nil
}

// decodeTestDoc reads one mapping node into a testDoc.
func decodeTestDoc(n *yaml.Node) (testDoc, error) {
	if n.Kind != yaml.MappingNode {
		return testDoc{}, fmt.Errorf("line %d: a test definition must be a mapping", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if keys := docKeys(); !slices.Contains(keys, k.Value) {
			return testDoc{}, fmt.Errorf("line %d: unknown key %q (want one of %s)", k.Line, k.Value, strings.Join(keys, ", "))
		}
	}
	var d testDoc
	if err := n.Decode(&d); err != nil {
		return testDoc{}, err
	}
	d.Line = n.Line
	if strings.TrimSpace(d.Name) == "" {
		return testDoc{}, fmt.Errorf("line %d: name is required", n.Line)
	}
	if d.Spec == nil {
		return testDoc{}, fmt.Errorf("line %d: %s: spec is required", n.Line, d.Name)
	}
	return d, nil
}

// testBody is the JSON of POST /tests (TestCreate) and PUT /tests/{id}
// (TestReplace, without project); the spec stays a map so its fields reach
// the API as written and the API validates them.
type testBody struct {
	Project     string            `json:"project,omitempty"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Spec        map[string]any    `json:"spec"`
	Thresholds  []string          `json:"thresholds"`
	Labels      map[string]string `json:"labels"`
	Schedule    string            `json:"schedule,omitempty"`
	Timezone    string            `json:"timezone,omitempty"`
	// BaselineLast is sent as written, so that the API names a bad one.
	BaselineLast *int `json:"baseline_last,omitempty"`
}

// body returns the request body of d; project is -project's value, used
// when d names none.
func (d *testDoc) body(project string) testBody {
	b := testBody{
		Project: d.Project, Name: d.Name, Description: d.Description, Spec: d.Spec, Thresholds: d.Thresholds, Labels: d.Labels,
		Schedule: d.Schedule, Timezone: d.Timezone,
	}
	if d.BaselineLast != 0 {
		b.BaselineLast = &d.BaselineLast
	}
	if b.Project == "" {
		b.Project = project
	}
	if b.Thresholds == nil {
		b.Thresholds = []string{}
	}
	if b.Labels == nil {
		b.Labels = map[string]string{}
	}
	return b
}

// zoneOrUTC is a schedule's time zone, UTC when none is given.
func zoneOrUTC(tz string) string {
	if tz == "" {
		return "UTC"
	}
	return tz
}

// sameTest reports whether the stored test cur already is what d asks
// for, so apply leaves it alone. "Unchanged" means: the same description,
// labels, thresholds (in order, as written), baseline_last and schedule (with its zone,
// UTC by default), and the same spec once
// d's spec is parsed, normalized (defaults filled) and redacted exactly
// as the API does before storing and showing it. So a spec that spells
// out a default equals one that omits it, and a change only to a secret
// (an Authorization header, a token in the URL), which the API never
// shows, is not seen. A spec that does not parse is never the same: the
// API is asked and reports why.
func sameTest(d *testDoc, cur *client.Test) bool {
	if d.Description != cur.Description || !slices.Equal(d.Thresholds, cur.Thresholds) || !maps.Equal(d.Labels, cur.Labels) ||
		d.BaselineLast != deref(cur.BaselineLast) {
		return false
	}
	if d.Schedule != deref(cur.Schedule) || (d.Schedule != "" && zoneOrUTC(d.Timezone) != zoneOrUTC(deref(cur.Timezone))) {
		return false
	}
	raw, err := json.Marshal(d.Spec)
	if err != nil {
		return false
	}
	want, err := spec.Parse(raw)
	if err != nil {
		return false
	}
	a, errA := json.Marshal(want.Redacted())
	b, errB := json.Marshal(cur.Spec)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}
