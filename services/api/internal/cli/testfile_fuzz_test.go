package cli

import (
	"strings"
	"testing"
)

// FuzzDecodeTestDocs reads a `barrage tests apply` file (YAML, possibly
// several documents): it never panics (YAML anchors and aliases included),
// and every definition it accepts has a name, a spec and its position.
func FuzzDecodeTestDocs(f *testing.F) {
	for _, s := range []string{
		"name: a\nspec: {url: http://e/, qps: 10}\n",
		"- name: a\n  spec: {url: http://e/}\n- name: b\n  spec: {url: tcp://e:1}\n  thresholds: [p(99) < 1s]\n",
		"name: a\nspec: {url: http://e/}\n---\nname: b\nspec: {url: http://e/}\nschedule: '@hourly'\n",
		"a: &x [*x]\n", "name: a\nspec: &s {k: *s}\n", "name: \nspec: 1\n", "---\n...\n", "bogus: 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := decodeTestDocs(data)
		if err != nil {
			return
		}
		for i := range docs {
			d := &docs[i]
			if strings.TrimSpace(d.Name) == "" || d.Spec == nil || d.Index != i+1 {
				t.Fatalf("definition %d accepted with name %q, spec %v, index %d", i+1, d.Name, d.Spec, d.Index)
			}
			_ = d.body("default")
		}
	})
}
