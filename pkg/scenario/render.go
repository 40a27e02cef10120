package scenario

import (
	"fmt"
	"math/rand/v2"
	"text/template"
	"text/template/parse"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
)

// segment is a piece of a compiled template: literal text, the value of a
// variable when isVar, or text with placeholders when gen is set.
type segment struct {
	text  string
	isVar bool
	gen   *reqtemplate.Template
}

// Gen is what a request's placeholders ({seq}, {rand:N}, {alpha:N},
// {uuid}: pkg/reqtemplate) draw from: the request's sequence number and
// the caller's random source.
type Gen struct {
	Seq  uint64
	Rand *rand.Rand
}

// segments flattens a template that compiler.template accepted (only
// text and {{.name}}, its text's placeholders well formed) so that
// rendering is appends, without text/template's reflection; nil for a nil
// template.
func segments(t *template.Template) []segment {
	if t == nil || t.Tree == nil {
		return nil
	}
	out := make([]segment, 0, len(t.Root.Nodes))
	for _, n := range t.Root.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			seg := segment{text: string(n.Text)}
			if g := reqtemplate.MustParse(seg.text, reqtemplate.Options{}); g.Dynamic() {
				seg.gen = g
			}
			out = append(out, seg)
		case *parse.ActionNode:
			name, _ := plainVar(n)
			out = append(out, segment{text: name, isVar: true})
		}
	}
	return out
}

// usesSeq reports whether a segment renders {seq}.
func usesSeq(segs []segment) bool {
	for _, s := range segs {
		if s.gen.UsesSeq() {
			return true
		}
	}
	return false
}

// appendSegments appends the rendered template to dst; a variable that is
// not set is an error, as text/template's missingkey=error makes it.
func appendSegments(dst []byte, segs []segment, vars map[string]string, g *Gen) ([]byte, error) {
	for _, s := range segs {
		switch {
		case s.gen != nil:
			dst = s.gen.Append(dst, g.Seq, g.Rand)
		case !s.isVar:
			dst = append(dst, s.text...)
		default:
			v, ok := vars[s.text]
			if !ok {
				return dst, fmt.Errorf("map has no entry for key %q", s.text)
			}
			dst = append(dst, v...)
		}
	}
	return dst, nil
}

// Rendered is a request rendered by RenderInto into buffers that the next
// RenderInto on the same value reuses: its slices are valid until then.
type Rendered struct {
	Method string
	// URL is the absolute URL.
	URL []byte
	// Headers are the step's headers in order, names in canonical form
	// (net/textproto), at most one per name.
	Headers []RenderedHeader
	// Body is the body; HasBody is false when the step has none.
	Body    []byte
	HasBody bool

	buf []byte // backs the header values
}

// RenderedHeader is one rendered request header.
type RenderedHeader struct {
	Name  string
	Value []byte
}

// RenderInto renders the step's request with the iteration's variables
// and g's placeholders into r, reusing r's buffers. Its variables render
// as Render's do.
func (s *PlanStep) RenderInto(r *Rendered, vars map[string]string, g *Gen) error {
	var err error
	r.Method = s.method
	if r.URL, err = appendSegments(r.URL[:0], s.urlSeg, vars, g); err != nil {
		return fmt.Errorf("step %s: url: %w", s.Name, err)
	}
	r.buf = r.buf[:0]
	r.Headers = r.Headers[:0]
	var ends [16]int
	idx := ends[:0]
	for _, h := range s.headers {
		if h.shadowed {
			continue
		}
		if r.buf, err = appendSegments(r.buf, h.seg, vars, g); err != nil {
			return fmt.Errorf("step %s: header %s: %w", s.Name, h.name, err)
		}
		idx = append(idx, len(r.buf))
	}
	// Slice the values only now: appends may have moved r.buf.
	start, i := 0, 0
	for _, h := range s.headers {
		if h.shadowed {
			continue
		}
		r.Headers = append(r.Headers, RenderedHeader{Name: h.canon, Value: r.buf[start:idx[i]:idx[i]]})
		start = idx[i]
		i++
	}
	r.HasBody = s.body != nil
	r.Body = r.Body[:0]
	if r.HasBody {
		if r.Body, err = appendSegments(r.Body, s.bodySeg, vars, g); err != nil {
			return fmt.Errorf("step %s: body: %w", s.Name, err)
		}
	}
	return nil
}

// UsesSeq reports whether the step's request renders {seq}, so that a
// caller draws a sequence number only for the steps that use one.
func (s *PlanStep) UsesSeq() bool { return s.usesSeq }

// HeaderExtractions lists the response headers the step's extractions
// read (as written in the scenario); a client may keep only these.
func (s *PlanStep) HeaderExtractions() []string { return s.headerNames }

// markShadowed marks the headers that a later one with the same canonical
// name replaces.
func markShadowed(hs []header) {
	for i := range hs {
		for j := i + 1; j < len(hs); j++ {
			if hs[j].canon == hs[i].canon {
				hs[i].shadowed = true
			}
		}
	}
}
