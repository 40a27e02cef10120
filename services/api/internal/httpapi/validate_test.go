package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

func TestCleanReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reason, want string
	}{
		{"plain reason is kept", `value must be a string`, `value must be a string`},
		{"empty", ``, ``},
		{
			"one message", "jsonschema validation failed with 'file:///openapi.json#/components/schemas/RunSpec'\n- at '': minimum: got 0, want 1",
			"minimum: got 0, want 1",
		},
		{
			"several messages, nested locations", "jsonschema validation failed with 'file:///x.json#'\n- at '/qps': minimum: got -1, want 0\n  - at '/headers/1': got number, want string",
			"minimum: got -1, want 0; got number, want string",
		},
		{"a line without a location", "jsonschema validation failed with 'x'\n- additional properties 'bogus' not allowed", "additional properties 'bogus' not allowed"},
		{"header only", "jsonschema validation failed with 'file:///x.json#'", "jsonschema validation failed with 'file:///x.json#'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := cleanReason(tt.reason); got != tt.want {
				t.Errorf("cleanReason(%q) = %q, want %q", tt.reason, got, tt.want)
			}
		})
	}
}

func TestQuotedProperty(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reason, suffix string
		want           string
		ok             bool
	}{
		{`property "bogus" is unsupported`, " is unsupported", "bogus", true},
		{`property "url" is missing`, " is missing", "url", true},
		{`property "with space" is missing`, " is missing", "with space", true},
		{`property "" is missing`, " is missing", "", true},
		{`property "url" is missing`, " is unsupported", "", false},
		{`property "url" is unsupported now`, " is unsupported", "", false},
		{`property "spec" is missing`, " is missing", "spec", true},
		{`the property "url" is missing`, " is missing", "", false},
		{`property url is missing`, " is missing", "", false},
		{``, " is missing", "", false},
	}
	for _, tt := range tests {
		got, ok := quotedProperty(tt.reason, tt.suffix)
		if ok != tt.ok || (ok && got != tt.want) { // the name matters only when ok
			t.Errorf("quotedProperty(%q, %q) = %q, %v; want %q, %v", tt.reason, tt.suffix, got, ok, tt.want, tt.ok)
		}
	}
}

func TestIsIndex(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{"0": true, "12": true, "007": true, "": false, "a1": false, "-1": false, "1.5": false, "x": false} {
		if got := isIndex(p); got != want {
			t.Errorf("isIndex(%q) = %v, want %v", p, got, want)
		}
	}
}

// mustSchema decodes a JSON schema.
func mustSchema(t *testing.T, doc string) *openapi3.Schema {
	t.Helper()
	var s openapi3.Schema
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatalf("schema %s: %v", doc, err)
	}
	return &s
}

// schemaErrors validates the JSON value against schema and returns every
// schema error.
func schemaErrors(t *testing.T, schema *openapi3.Schema, value string) []*openapi3.SchemaError {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		t.Fatalf("value %s: %v", value, err)
	}
	err := schema.VisitJSON(v, openapi3.MultiErrors())
	var errs openapi3.MultiError
	if !errors.As(err, &errs) {
		errs = openapi3.MultiError{err}
	}
	var out []*openapi3.SchemaError
	for _, e := range errs {
		var se *openapi3.SchemaError
		if errors.As(e, &se) {
			out = append(out, se)
		}
	}
	return out
}

// wantField is an expected field error.
type wantField struct{ field, message string }

func TestSchemaField(t *testing.T) {
	t.Parallel()
	body := mustSchema(t, `{
		"type": "object", "additionalProperties": false, "required": ["spec"],
		"properties": {
			"name": {"type": "string"},
			"spec": {
				"type": "object", "additionalProperties": false, "required": ["url"],
				"properties": {
					"url": {"type": "string"},
					"headers": {"type": "array", "items": {"type": "string"}},
					"ramp": {"type": "object", "properties": {"over": {"type": "string"}}},
					"matrix": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}
				}
			}
		}
	}`)
	labels := mustSchema(t, `{"type": "array", "items": {"type": "string", "pattern": "^[a-z]+="}}`)
	limit := mustSchema(t, `{"type": "integer", "minimum": 1}`)
	tests := []struct {
		name   string
		schema *openapi3.Schema
		prefix string
		value  string
		want   []wantField // sorted by field; a "" message is not checked
	}{
		{name: "unknown top-level property", schema: body, value: `{"spec": {"url": "u"}, "bogus": 1}`, want: []wantField{{"bogus", "unknown field"}}},
		{name: "unknown nested property", schema: body, value: `{"spec": {"url": "u", "bogus": 1}}`, want: []wantField{{"spec.bogus", "unknown field"}}},
		{name: "missing nested property", schema: body, value: `{"spec": {}}`, want: []wantField{{"spec.url", "is required"}}},
		{name: "missing top-level property", schema: body, value: `{}`, want: []wantField{{"spec", "is required"}}},
		{name: "array element", schema: body, value: `{"spec": {"url": "u", "headers": ["a", 5]}}`, want: []wantField{{"spec.headers[1]", ""}}},
		{name: "array in array", schema: body, value: `{"spec": {"url": "u", "matrix": [[1], [2, "x"]]}}`, want: []wantField{{"spec.matrix[1][1]", ""}}},
		{name: "nested object", schema: body, value: `{"spec": {"url": "u", "ramp": {"over": 5}}}`, want: []wantField{{"spec.ramp.over", ""}}},
		{name: "several at once", schema: body, value: `{"name": 1, "spec": {"url": 2, "headers": [true]}}`, want: []wantField{{"name", ""}, {"spec.headers[0]", ""}, {"spec.url", ""}}},
		{name: "parameter element", schema: labels, prefix: "label", value: `["team=web", "nokey"]`, want: []wantField{{"label[1]", ""}}},
		{name: "parameter value", schema: limit, prefix: "limit", value: `0`, want: []wantField{{"limit", ""}}},
		{name: "parameter object property", schema: body, prefix: "filter", value: `{"spec": {"url": "u", "x": 1}}`, want: []wantField{{"filter.spec.x", "unknown field"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ses := schemaErrors(t, tt.schema, tt.value)
			got := make([]apperr.FieldError, len(ses))
			for i, se := range ses {
				got[i] = schemaField(tt.prefix, se)
			}
			slices.SortFunc(got, func(a, b apperr.FieldError) int {
				if a.Field < b.Field {
					return -1
				}
				if a.Field > b.Field {
					return 1
				}
				return 0
			})
			if len(got) != len(tt.want) {
				t.Fatalf("fields = %v, want %v", got, tt.want)
			}
			for i, w := range tt.want {
				if got[i].Field != w.field || (w.message != "" && got[i].Message != w.message) || got[i].Message == "" {
					t.Errorf("field %d = %+v, want %+v", i, got[i], w)
				}
			}
		})
	}
}

func TestParamProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err        error
		code       apperr.Code
		field, msg string
	}{
		{fmt.Errorf("Invalid format for parameter run: error unmarshaling 'x' text as *uuid.UUID: invalid UUID length: 1"), apperr.Invalid, "run", "must be a UUID"},
		{fmt.Errorf("Invalid format for parameter limit: error binding string parameter: strconv.ParseInt"), apperr.Invalid, "limit", "has an invalid format"},
		{fmt.Errorf("Expected one value for Idempotency-Key, got 2"), apperr.BadRequest, "", ""},
	}
	for _, tt := range tests {
		var e *apperr.Error
		if !errors.As(paramProblem(tt.err), &e) || e.Code != tt.code {
			t.Errorf("paramProblem(%q) = %v, want code %s", tt.err, e, tt.code)
			continue
		}
		if tt.field == "" {
			if len(e.Fields) != 0 {
				t.Errorf("paramProblem(%q) has fields %+v", tt.err, e.Fields)
			}
			continue
		}
		if len(e.Fields) != 1 || e.Fields[0].Field != tt.field || e.Fields[0].Message != tt.msg {
			t.Errorf("paramProblem(%q) fields = %+v, want %s: %s", tt.err, e.Fields, tt.field, tt.msg)
		}
	}
}
