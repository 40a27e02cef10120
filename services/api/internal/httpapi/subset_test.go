package httpapi

import (
	"testing"

	"go.yaml.in/yaml/v4"

	api "github.com/barrage-dev/barrage/services/api"
)

// only31 are the schema keywords that OpenAPI 3.1 (JSON Schema 2020-12)
// added over 3.0.
func only31(k string) bool {
	switch k {
	case "const", "prefixItems", "contains", "if", "then", "else", "dependentSchemas", "dependentRequired",
		"unevaluatedProperties", "unevaluatedItems", "$defs", "minContains", "maxContains",
		"patternProperties", "propertyNames", "examples":
		return true
	}
	return false
}

// subsetViolations lists the places in a parsed YAML document that use
// 3.1-only schema keywords or type lists.
func subsetViolations(path string, node any) []string {
	var out []string
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			if only31(k) {
				out = append(out, path+"."+k)
			}
			if _, list := v.([]any); list && k == "type" {
				out = append(out, path+".type")
			}
			out = append(out, subsetViolations(path+"."+k, v)...)
		}
	case []any:
		for _, v := range n {
			out = append(out, subsetViolations(path+"[]", v)...)
		}
	}
	return out
}

// TestContractKeepsTo30Subset guards the shortcut in newValidator: the
// request validator treats openapi.yaml as 3.0, which is only right while
// its schemas use no keyword that 3.1 added or changed.
func TestContractKeepsTo30Subset(t *testing.T) {
	t.Parallel()
	var doc any
	if err := yaml.Unmarshal(api.OpenAPI, &doc); err != nil {
		t.Fatalf("parse openapi.yaml: %v", err)
	}
	if v := subsetViolations("", doc); len(v) > 0 {
		t.Errorf("openapi.yaml uses 3.1-only schema features the validator does not check: %v", v)
	}
	var planted any
	if err := yaml.Unmarshal([]byte("a:\n  const: 1\n  b:\n    type: [string, \"null\"]\n"), &planted); err != nil {
		t.Fatal(err)
	}
	if v := subsetViolations("", planted); len(v) != 2 {
		t.Errorf("planted document: got violations %v, want .a.const and .a.b.type", v)
	}
}
