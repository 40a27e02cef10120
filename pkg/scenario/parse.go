package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/textproto"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/theory/jsonpath"
	"go.yaml.in/yaml/v4"
)

// MaxSteps is the most steps a scenario may have.
const MaxSteps = 100

// FieldError is an error in one field of a scenario document.
type FieldError struct {
	// Path names the field, e.g. steps[2].extract[0].json_path.
	Path string
	// Msg says what is wrong.
	Msg string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return "scenario: " + e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Parse reads a scenario document, JSON or YAML, and compiles it. Unknown
// fields and values of the wrong type are errors naming their field; so is
// every field Compile rejects.
func Parse(doc []byte) (*Plan, error) {
	sc, err := Decode(doc)
	if err != nil {
		return nil, err
	}
	return Compile(sc)
}

// Decode reads a scenario document, JSON or YAML, checking its shape as
// Parse does, without compiling it: a caller may read its data file first
// (ReadDataFile).
func Decode(doc []byte) (*Scenario, error) {
	tree, err := decode(doc)
	if err != nil {
		return nil, err
	}
	c := &compiler{}
	checkShape(c, "", tree, reflect.TypeFor[Scenario]())
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	j, err := json.Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	var sc Scenario
	if err := json.Unmarshal(j, &sc); err != nil { // the shape is checked: cannot fail
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return &sc, nil
}

// decode reads JSON (a document starting with '{') or YAML into a tree of
// JSON values (maps, slices, strings, float64, bool, nil).
func decode(doc []byte) (any, error) {
	trimmed := bytes.TrimSpace(doc)
	if len(trimmed) == 0 {
		return nil, errors.New("scenario: empty document")
	}
	if trimmed[0] != '{' {
		var tree any
		if err := yaml.Unmarshal(trimmed, &tree); err != nil {
			return nil, fmt.Errorf("scenario: yaml: %w", err)
		}
		j, err := json.Marshal(tree)
		if err != nil {
			return nil, fmt.Errorf("scenario: yaml: %w", err)
		}
		trimmed = j
	}
	var tree any
	if err := json.Unmarshal(trimmed, &tree); err != nil {
		return nil, fmt.Errorf("scenario: json: %w", err)
	}
	return tree, nil
}

// compiler collects field errors while compiling.
type compiler struct {
	errs []error
	vars map[string]bool // variables defined so far
}

func (c *compiler) fail(path, format string, args ...any) {
	c.errs = append(c.errs, &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// Compile checks a scenario and prepares its templates, paths and
// expressions. Its error joins a *FieldError per problem found.
func Compile(sc *Scenario) (*Plan, error) {
	c := &compiler{vars: map[string]bool{IterationVar: true}}
	for name := range sc.Vars {
		if !validVar(name) {
			c.fail("vars."+name, "a variable name is a letter or '_' then letters, digits or '_'")
		}
		c.vars[name] = true
	}
	var data *Table
	if sc.Data != nil {
		data = c.data(sc.Data, sc.Vars)
	}
	switch {
	case len(sc.Steps) == 0:
		c.fail("steps", "at least one step is required")
	case len(sc.Steps) > MaxSteps:
		c.fail("steps", "at most %d steps, not %d", MaxSteps, len(sc.Steps))
	}
	p := &Plan{Name: sc.Name, Vars: sc.Vars, Data: data}
	names := map[string]int{}
	for i := range sc.Steps {
		st := &sc.Steps[i]
		path := fmt.Sprintf("steps[%d]", i)
		if st.Name == "" {
			c.fail(path+".name", "required")
		} else if j, dup := names[st.Name]; dup {
			c.fail(path+".name", "%q is also the name of steps[%d]", st.Name, j)
		}
		names[st.Name] = i
		p.Steps = append(p.Steps, c.step(path, i, st))
	}
	c.once(sc.Steps)
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	return p, nil
}

// once checks that once steps come first and that not every step is once
// (there would be nothing to run in each iteration).
func (c *compiler) once(steps []Step) {
	looping := -1
	for i := range steps {
		switch {
		case !steps[i].Once && looping < 0:
			looping = i
		case steps[i].Once && looping >= 0:
			c.fail(fmt.Sprintf("steps[%d].once", i), "step %q runs once, so it must come before step %q, which runs in every iteration",
				steps[i].Name, steps[looping].Name)
		}
	}
	if looping < 0 && len(steps) > 0 {
		c.fail(fmt.Sprintf("steps[%d].once", len(steps)-1), "every step is once (the last, %q, too): at least one step must run in every iteration",
			steps[len(steps)-1].Name)
	}
}

func (c *compiler) step(path string, i int, st *Step) *PlanStep {
	ps := &PlanStep{Name: st.Name, Index: i, ContinueOnFailure: st.ContinueOnFailure, Once: st.Once, H2: st.Protocol == ProtocolH2}
	if st.Protocol != "" && st.Protocol != ProtocolHTTP11 && st.Protocol != ProtocolH2 {
		c.fail(path+".protocol", "%q is not a step protocol: want http/1.1 or h2", st.Protocol)
	}
	ps.GRPC = c.grpcStep(path, st)
	ps.method = strings.ToUpper(st.Method)
	if ps.method == "" {
		ps.method = "GET"
		if st.Body != "" || ps.GRPC != nil {
			ps.method = "POST"
		}
	}
	if !validToken(ps.method) {
		c.fail(path+".method", "%q is not an HTTP method", st.Method)
	}
	ps.url = c.template(path+".url", st.URL)
	if st.URL == "" {
		c.fail(path+".url", "required")
	} else if !strings.Contains(st.URL, "{{") && ps.GRPC == nil {
		if u, err := url.Parse(st.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			c.fail(path+".url", "want an absolute http://, https://, grpc:// or grpcs:// URL")
		}
	}
	for _, name := range sortedKeys(st.Headers) {
		hp := path + ".headers." + name
		if !validToken(name) {
			c.fail(hp, "not a valid header name")
		}
		ps.headers = append(ps.headers, header{name: name, canon: textproto.CanonicalMIMEHeaderKey(name), value: c.template(hp, st.Headers[name])})
	}
	markShadowed(ps.headers)
	if st.Body != "" {
		ps.body = c.template(path+".body", st.Body)
	}
	for j := range st.Extract {
		ps.extract = append(ps.extract, c.extraction(fmt.Sprintf("%s.extract[%d]", path, j), &st.Extract[j]))
	}
	for j := range st.Checks {
		ps.checks = append(ps.checks, c.check(fmt.Sprintf("%s.checks[%d]", path, j), &st.Checks[j], ps.GRPC != nil))
	}
	if st.Think != nil {
		ps.think = c.think(path+".think", st.Think)
	}
	ps.urlSeg, ps.bodySeg = segments(ps.url), segments(ps.body)
	ps.usesSeq = usesSeq(ps.urlSeg) || usesSeq(ps.bodySeg)
	for i := range ps.headers {
		ps.headers[i].seg = segments(ps.headers[i].value)
		ps.usesSeq = ps.usesSeq || usesSeq(ps.headers[i].seg)
	}
	for _, x := range ps.extract {
		if x.header != "" {
			ps.headerNames = append(ps.headerNames, x.header)
		}
	}
	return ps
}

func (c *compiler) extraction(path string, e *Extraction) extractor {
	x := extractor{variable: e.Var, header: e.Header, group: e.Group}
	if !validVar(e.Var) {
		c.fail(path+".var", "a variable name is a letter or '_' then letters, digits or '_'")
	}
	if n := countSet(e.JSONPath != "", e.Regex != "", e.Header != ""); n != 1 {
		c.fail(path, "set exactly one of json_path, regex or header (%d set)", n)
	}
	if e.JSONPath != "" {
		x.path = c.jsonPath(path+".json_path", e.JSONPath)
	}
	if e.Regex != "" {
		x.re = c.regex(path+".regex", e.Regex)
		if x.group == 0 {
			x.group = 1
		}
		if x.re != nil && (x.group < 0 || x.group > x.re.NumSubexp()) {
			c.fail(path+".group", "the regex has %d groups, not %d", x.re.NumSubexp(), x.group)
		}
	} else if e.Group != 0 {
		c.fail(path+".group", "only with regex")
	}
	// Set after the step: later steps may use it, this step's templates not.
	c.vars[e.Var] = true
	return x
}

func (c *compiler) check(path string, k *Check, grpc bool) checker {
	ch := checker{name: k.Name, contains: k.BodyContains}
	if k.Name == "" {
		c.fail(path+".name", "required")
	}
	n := countSet(len(k.Status) > 0, k.BodyContains != "", k.BodyMatches != "", k.JSONPath != "", k.LatencyBelow != "")
	if n != 1 {
		c.fail(path, "set exactly one of status, body_contains, body_matches, json_path or latency_below (%d set)", n)
	}
	for j, s := range k.Status {
		switch {
		case grpc && (s < 0 || s > maxGRPCCode):
			c.fail(fmt.Sprintf("%s.status[%d]", path, j), "%d is not a gRPC status code (0 OK to 16 Unauthenticated)", s)
		case !grpc && (s < 100 || s > 599):
			c.fail(fmt.Sprintf("%s.status[%d]", path, j), "%d is not an HTTP status", s)
		}
	}
	ch.status = k.Status
	if k.BodyMatches != "" {
		ch.re = c.regex(path+".body_matches", k.BodyMatches)
	}
	if k.JSONPath != "" {
		ch.path = c.jsonPath(path+".json_path", k.JSONPath)
	}
	if len(k.Equals) > 0 {
		if k.JSONPath == "" {
			c.fail(path+".equals", "only with json_path")
		}
		if err := json.Unmarshal(k.Equals, &ch.equals); err != nil {
			c.fail(path+".equals", "not a JSON value")
		}
		ch.hasEquals = true
	}
	if k.LatencyBelow != "" {
		ch.below = c.duration(path+".latency_below", k.LatencyBelow)
		if ch.below <= 0 {
			c.fail(path+".latency_below", "must be positive")
		}
	}
	return ch
}

func (c *compiler) think(path string, t *Think) thinker {
	th := thinker{kind: t.Kind}
	switch t.Kind {
	case "fixed":
		th.a = c.duration(path+".duration", t.Duration)
	case "uniform":
		th.a, th.b = c.duration(path+".min", t.Min), c.duration(path+".max", t.Max)
		if th.b < th.a {
			c.fail(path+".max", "below min")
		}
	case "exponential":
		th.a = c.duration(path+".mean", t.Mean)
	default:
		c.fail(path+".kind", "want fixed, uniform or exponential, not %q", t.Kind)
	}
	return th
}

func (c *compiler) duration(path, s string) time.Duration {
	if s == "" {
		c.fail(path, "required")
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		c.fail(path, "want a non-negative duration such as \"250ms\", not %q", s)
	}
	return d
}

func (c *compiler) regex(path, s string) *regexp.Regexp {
	re, err := regexp.Compile(s)
	if err != nil {
		c.fail(path, "%v", err)
	}
	return re
}

func (c *compiler) jsonPath(path, s string) *jsonpath.Path {
	p, err := jsonpath.Parse(s)
	if err != nil {
		c.fail(path, "%v", err)
	}
	return p
}

func countSet(b ...bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

func validVar(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// validToken reports whether s is an RFC 9110 token (methods, header names).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b <= ' ' || b >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, b) >= 0 {
			return false
		}
	}
	return true
}
