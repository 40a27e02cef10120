package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"text/template"
	"time"

	"github.com/theory/jsonpath"
)

// Plan is a compiled scenario, safe for concurrent use.
type Plan struct {
	// Name is the scenario's name.
	Name string
	// Vars are the variables every iteration starts with.
	Vars map[string]string
	// Steps run in order.
	Steps []*PlanStep
	// Data is the data file's table, nil without one.
	Data *Table
}

// OnceSteps is the number of once steps, which are the first steps.
func (p *Plan) OnceSteps() int {
	n := 0
	for n < len(p.Steps) && p.Steps[n].Once {
		n++
	}
	return n
}

// PlanStep is a compiled step.
type PlanStep struct {
	// Name is the step's name.
	Name string
	// Index is the step's position, from 0.
	Index int
	// ContinueOnFailure is the step's continue_on_failure.
	ContinueOnFailure bool
	// Once is the step's once: it runs once per virtual user, first.
	Once bool
	// H2 is set when the step's protocol is h2.
	H2 bool
	// GRPC is set for a gRPC step (grpc.go).
	GRPC *GRPCStep

	method  string
	url     *template.Template
	headers []header
	body    *template.Template
	extract []extractor
	checks  []checker
	think   thinker

	// Flattened templates (render.go) and the headers extractions read.
	urlSeg, bodySeg []segment
	headerNames     []string
	usesSeq         bool
}

type header struct {
	name  string
	canon string // name in canonical form (net/textproto)
	value *template.Template
	seg   []segment
	// shadowed: a later header has the same canonical name and replaces
	// this one (as http.Header.Set does in Render).
	shadowed bool
}

type extractor struct {
	variable string
	path     *jsonpath.Path
	re       *regexp.Regexp
	group    int
	header   string
}

type checker struct {
	name      string
	status    []int
	contains  string
	re        *regexp.Regexp
	path      *jsonpath.Path
	equals    any
	hasEquals bool
	below     time.Duration
}

type thinker struct {
	kind string
	a, b time.Duration
}

// Request is a rendered request.
type Request struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
}

// Render renders the step's request with the iteration's variables
// through text/template: the reference RenderInto's variables are tested
// against. It leaves placeholders such as {seq} as written.
func (s *PlanStep) Render(vars map[string]string) (Request, error) {
	r := Request{Method: s.method, Header: make(http.Header, len(s.headers))}
	var b strings.Builder
	if err := s.url.Execute(&b, vars); err != nil {
		return r, fmt.Errorf("step %s: url: %w", s.Name, err)
	}
	r.URL = b.String()
	for _, h := range s.headers {
		b.Reset()
		if err := h.value.Execute(&b, vars); err != nil {
			return r, fmt.Errorf("step %s: header %s: %w", s.Name, h.name, err)
		}
		r.Header.Set(h.name, b.String())
	}
	if s.body != nil {
		var bb bytes.Buffer
		if err := s.body.Execute(&bb, vars); err != nil {
			return r, fmt.Errorf("step %s: body: %w", s.Name, err)
		}
		r.Body = bb.Bytes()
	}
	return r, nil
}

// Response is what Evaluate looks at.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// Latency is the step's response time, from its intended start.
	Latency time.Duration
}

// Outcome lists what failed in one response.
type Outcome struct {
	// FailedExtractions are the variables that were not found.
	FailedExtractions []string
	// FailedChecks are the names of the checks that failed.
	FailedChecks []string
}

// Failed reports whether anything failed.
func (o *Outcome) Failed() bool { return len(o.FailedExtractions)+len(o.FailedChecks) > 0 }

// Evaluate runs the step's extractions, setting vars, then its checks. An
// extraction that finds nothing fails and leaves its variable as it was.
func (s *PlanStep) Evaluate(r *Response, vars map[string]string) Outcome {
	var o Outcome
	doc := lazyJSON{body: r.Body}
	for i := range s.extract {
		x := &s.extract[i]
		v, ok := x.apply(r, &doc)
		if !ok {
			o.FailedExtractions = append(o.FailedExtractions, x.variable)
			continue
		}
		vars[x.variable] = v
	}
	for i := range s.checks {
		if !s.checks[i].pass(r, &doc) {
			o.FailedChecks = append(o.FailedChecks, s.checks[i].name)
		}
	}
	return o
}

// Think returns the pause after the step (0 without think time).
func (s *PlanStep) Think(rng *rand.Rand) time.Duration {
	t := s.think
	switch t.kind {
	case "fixed":
		return t.a
	case "uniform":
		return t.a + time.Duration(rng.Int64N(int64(t.b-t.a)+1))
	case "exponential":
		return min(time.Duration(rng.ExpFloat64()*float64(t.a)), 10*t.a)
	}
	return 0
}

// lazyJSON decodes a body once, on first use.
type lazyJSON struct {
	body    []byte
	decoded bool
	value   any
	ok      bool
}

func (l *lazyJSON) get() (any, bool) {
	if !l.decoded {
		l.decoded = true
		l.ok = json.Unmarshal(l.body, &l.value) == nil
	}
	return l.value, l.ok
}

func (x *extractor) apply(r *Response, doc *lazyJSON) (string, bool) {
	switch {
	case x.path != nil:
		v, ok := doc.get()
		if !ok {
			return "", false
		}
		nodes := x.path.Select(v)
		if len(nodes) == 0 {
			return "", false
		}
		if s, isString := nodes[0].(string); isString {
			return s, true
		}
		j, err := json.Marshal(nodes[0])
		return string(j), err == nil
	case x.re != nil:
		m := x.re.FindSubmatch(r.Body)
		if len(m) <= x.group || m[x.group] == nil {
			return "", false
		}
		return string(m[x.group]), true
	default:
		vs := r.Header.Values(x.header)
		if len(vs) == 0 {
			return "", false
		}
		return vs[0], true
	}
}

func (c *checker) pass(r *Response, doc *lazyJSON) bool {
	switch {
	case len(c.status) > 0:
		for _, s := range c.status {
			if s == r.Status {
				return true
			}
		}
		return false
	case c.contains != "":
		return bytes.Contains(r.Body, []byte(c.contains))
	case c.re != nil:
		return c.re.Match(r.Body)
	case c.path != nil:
		v, ok := doc.get()
		if !ok {
			return false
		}
		nodes := c.path.Select(v)
		if len(nodes) == 0 {
			return false
		}
		return !c.hasEquals || reflect.DeepEqual(nodes[0], c.equals)
	default:
		return r.Latency < c.below
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
