package scenario_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/scenario"
)

// TestRenderIntoMatchesRender: the flattened templates render what
// text/template renders, header names canonical and a header that
// another with the same canonical name replaces left out (as
// http.Header.Set does); a reused Rendered holds the second rendering
// only; a variable not set is an error naming the field.
func TestRenderIntoMatchesRender(t *testing.T) {
	t.Parallel()
	p := mustParse(t, `
name: render
vars: {a: one, b: "{{.x}}"}
steps:
  - name: s
    method: put
    url: http://127.0.0.1:1/{{.a}}/x?b={{.b}}&i={{.iteration}}
    headers: {x-tok: 'Bearer {{.a}}{{.b}}', X-Tok: 'last {{.iteration}}', accept: '*/*', Plain: literal}
    body: '{{.iteration}}:{{.a}}:{{.b}}'
    extract:
      - {var: c, header: x-trace}
      - {var: d, regex: 'd=(.)'}
  - name: t
    url: http://127.0.0.1:1/{{.c}}
`)
	var r scenario.Rendered
	for _, vars := range []map[string]string{
		{"a": "a-long-first-value-to-grow-buffers", "b": "b", scenario.IterationVar: "12345"},
		{"a": "one", "b": "{{.x}}", scenario.IterationVar: "7"},
	} {
		want, err := p.Steps[0].Render(vars)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Steps[0].RenderInto(&r, vars, &scenario.Gen{}); err != nil {
			t.Fatal(err)
		}
		got := http.Header{}
		for _, h := range r.Headers {
			if _, dup := got[h.Name]; dup {
				t.Errorf("header %s rendered twice", h.Name)
			}
			got[h.Name] = []string{string(h.Value)}
		}
		if r.Method != want.Method || string(r.URL) != want.URL || !bytes.Equal(r.Body, want.Body) || !r.HasBody {
			t.Errorf("RenderInto %s %s %q, Render %s %s %q", r.Method, r.URL, r.Body, want.Method, want.URL, want.Body)
		}
		if len(got) != len(want.Header) || len(got) != 3 {
			t.Errorf("headers %v, Render's %v", got, want.Header)
		}
		for k, v := range want.Header {
			if got.Get(k) != v[0] {
				t.Errorf("header %s: %q, Render's %q", k, got.Get(k), v[0])
			}
		}
	}
	if got := p.Steps[0].HeaderExtractions(); len(got) != 1 || got[0] != "x-trace" {
		t.Errorf("HeaderExtractions %v", got)
	}
	if err := p.Steps[1].RenderInto(&r, map[string]string{}, &scenario.Gen{}); err == nil || !strings.Contains(err.Error(), "step t: url") {
		t.Errorf("missing variable: %v", err)
	}
	if err := p.Steps[1].RenderInto(&r, map[string]string{"c": "z"}, &scenario.Gen{}); err != nil || string(r.URL) != "http://127.0.0.1:1/z" || r.HasBody || len(r.Headers) != 0 {
		t.Errorf("step t: %v %s %v %d headers", err, r.URL, r.HasBody, len(r.Headers))
	}
}

// TestPlaceholdersRender: the request placeholders of single-request runs
// render in a step's URL, headers and body from the Gen the caller gives;
// only a step that renders {seq} asks for a sequence number; a malformed
// placeholder is an error naming the field; JSON braces are text.
func TestPlaceholdersRender(t *testing.T) {
	t.Parallel()
	p := mustParse(t, `
name: gen
steps:
  - name: s
    url: http://127.0.0.1:1/u/{seq}?r={rand:10}
    headers: {X-Id: '{uuid}'}
    body: '{"name":"{alpha:6}","i":{{.iteration}}}'
  - name: t
    url: http://127.0.0.1:1/plain
    headers: {X-Id: '{uuid}'}
`)
	if !p.Steps[0].UsesSeq() || p.Steps[1].UsesSeq() {
		t.Fatalf("UsesSeq: %v %v, want true false", p.Steps[0].UsesSeq(), p.Steps[1].UsesSeq())
	}
	var r scenario.Rendered
	g := &scenario.Gen{Seq: 42, Rand: rand.New(rand.NewPCG(1, 2))}
	if err := p.Steps[0].RenderInto(&r, map[string]string{scenario.IterationVar: "7"}, g); err != nil {
		t.Fatal(err)
	}
	url := regexp.MustCompile(`^http://127\.0\.0\.1:1/u/42\?r=\d$`)
	body := regexp.MustCompile(`^\{"name":"[A-Za-z]{6}","i":7\}$`)
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if !url.Match(r.URL) || !body.Match(r.Body) || len(r.Headers) != 1 || !uuid.Match(r.Headers[0].Value) {
		t.Fatalf("rendered %s %q %s", r.URL, r.Body, r.Headers)
	}
	_, err := scenario.Parse([]byte(`{"name": "bad", "steps": [{"name": "a", "url": "http://h/{seq:abc}"}]}`))
	var fe *scenario.FieldError
	if !errors.As(err, &fe) || fe.Path != "steps[0].url" || !strings.Contains(fe.Msg, "seq") {
		t.Fatalf("malformed placeholder: %v", err)
	}
}
