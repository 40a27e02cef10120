package scenario_test

import (
	"testing"

	"github.com/barrage-dev/barrage/pkg/scenario"
)

// FuzzParse: any document either parses into a plan whose steps render
// with its vars, or fails with an error; it never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte(loginYAML))
	f.Add([]byte(`{"steps":[{"name":"a","url":"http://h/{{.iteration}}","checks":[{"name":"c","json_path":"$.a","equals":[1]}]}]}`))
	f.Add([]byte("steps: [{name: a, url: 'http://h/', think: {kind: exponential, mean: 1s}}]"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		p, err := scenario.Parse(doc)
		if err != nil {
			return
		}
		vars := map[string]string{scenario.IterationVar: "0"}
		for k, v := range p.Vars {
			vars[k] = v
		}
		if _, err := p.Steps[0].Render(vars); err != nil {
			t.Fatalf("first step does not render with the scenario's vars: %v", err)
		}
	})
}
