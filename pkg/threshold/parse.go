package threshold

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLength bounds the length of an expression, in bytes.
const MaxLength = 500

// parser reads one expression; i is the byte offset of the next unread
// byte.
type parser struct {
	src string
	i   int
}

// Parse reads one threshold expression. Its errors are *SyntaxError.
func Parse(src string) (Expr, error) {
	if len(src) > MaxLength {
		return Expr{}, &SyntaxError{Pos: 1, Msg: fmt.Sprintf("an expression is at most %d bytes", MaxLength)}
	}
	p := &parser{src: src}
	var e Expr
	if err := p.metric(&e); err != nil {
		return Expr{}, err
	}
	if err := p.op(&e); err != nil {
		return Expr{}, err
	}
	if err := p.limit(&e); err != nil {
		return Expr{}, err
	}
	if err := p.confidence(&e); err != nil {
		return Expr{}, err
	}
	if err := p.abort(&e); err != nil {
		return Expr{}, err
	}
	p.blanks()
	if p.i < len(p.src) {
		return Expr{}, p.fail(p.i, "unexpected %q after the limit", p.src[p.i:])
	}
	return e, nil
}

// confidence reads the optional "@" number "%" of a baseline form.
func (p *parser) confidence(e *Expr) error {
	p.blanks()
	start := p.i
	if p.i >= len(p.src) || p.src[p.i] != '@' {
		return nil
	}
	p.i++
	switch {
	case !e.Baseline:
		return p.fail(start, "a confidence level applies only to a baseline form, as in p(99) < baseline * 1.10 @ 95%%")
	case !e.Stat.Confident():
		return p.fail(start, "a confidence form takes p(N), error_rate or qps")
	case e.Op == Equal || e.Op == NotEqual:
		return p.fail(start, "a confidence form compares with <, <=, > or >=")
	}
	p.blanks()
	at := p.i
	v, err := p.number()
	if err != nil {
		return err
	}
	if p.i >= len(p.src) || p.src[p.i] != '%' {
		return p.fail(p.i, "expected %% after the confidence level, as in @ 95%%")
	}
	p.i++
	if v < MinConfidence || v > MaxConfidence {
		return p.fail(at, "a confidence level is from %v%% to %v%%", MinConfidence, MaxConfidence)
	}
	e.Confidence = v
	return nil
}

// abort reads the optional "abort" [ "after" digits ].
func (p *parser) abort(e *Expr) error {
	p.blanks()
	start := p.i
	if !strings.HasPrefix(p.src[p.i:], "abort") {
		return nil
	}
	p.i += len("abort")
	switch {
	case !e.Stat.CanAbort() || e.Step != "":
		return p.fail(start, "only errors, error_rate and status_* thresholds of the whole run can abort it: they are checked while it goes on")
	case e.Baseline:
		return p.fail(start, "a baseline threshold cannot abort a run: the baseline is known only at its end")
	}
	e.Abort, e.AbortAfter = true, DefaultAbortAfter
	p.blanks()
	if !strings.HasPrefix(p.src[p.i:], "after") {
		return nil
	}
	p.i += len("after")
	p.blanks()
	at := p.i
	for p.i < len(p.src) && isDigit(p.src[p.i]) {
		p.i++
	}
	n, err := strconv.ParseInt(p.src[at:p.i], 10, 64)
	if at == p.i || err != nil || n < 1 || n > MaxAbortAfter {
		return p.fail(at, "expected a number of requests from 1 to %d after \"after\"", int64(MaxAbortAfter))
	}
	e.AbortAfter = n
	return nil
}

// fail returns a SyntaxError at byte offset at.
func (p *parser) fail(at int, format string, args ...any) error {
	at = min(at, len(p.src))
	return &SyntaxError{Pos: utf8.RuneCountInString(p.src[:at]) + 1, Msg: fmt.Sprintf(format, args...)}
}

// blanks skips spaces and tabs.
func (p *parser) blanks() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
}

// word reads a name: lower-case letters, digits and underscores.
func (p *parser) word() string {
	start := p.i
	for p.i < len(p.src) {
		c := p.src[p.i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			break
		}
		p.i++
	}
	return p.src[start:p.i]
}

// metric reads [step "."] [kind "."] stat, or checks(name).
func (p *parser) metric(e *Expr) error {
	p.blanks()
	start := p.i
	name := p.word()
	if name == "" {
		return p.fail(start, "expected a metric such as p(99), error_rate or qps")
	}
	if (name == "step" || name == string(Checks)) && p.i < len(p.src) && p.src[p.i] == '(' {
		scoped, err := p.name(name)
		if err != nil {
			return err
		}
		if name == string(Checks) {
			e.Stat, e.Check = Checks, scoped
			return nil
		}
		if p.i >= len(p.src) || p.src[p.i] != '.' {
			return p.fail(p.i, `expected . and a metric after the step, as in step("checkout").p(99)`)
		}
		p.i++
		e.Step = scoped
		start = p.i
		name = p.word()
		if name == "" {
			return p.fail(start, "expected a metric after the step")
		}
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		switch Kind(name) {
		case Response, Service, Lag:
			e.Kind = Kind(name)
		default:
			return p.fail(start, "unknown latency kind %q: use response, service or lag", name)
		}
		p.i++
		start = p.i
		name = p.word()
	}
	if err := p.stat(e, start, name); err != nil {
		return err
	}
	if e.Kind != Primary && !e.Stat.Latency() {
		return p.fail(start, "%s is not a latency: a kind applies only to p(N), min, max, avg and stddev", name)
	}
	if e.Step != "" && e.Stat == QPS {
		return p.fail(start, "a step has no qps of its own: judge the run's qps, or the step's count")
	}
	return nil
}

// name reads ("NAME") after step or checks, the opening parenthesis
// next: a step's or a check's name, not blank, without a double quote.
func (p *parser) name(what string) (string, error) {
	p.i++ // (
	if p.i >= len(p.src) || p.src[p.i] != '"' {
		return "", p.fail(p.i, `expected a quoted name after %s(, as in %s("checkout")`, what, what)
	}
	p.i++
	at := p.i
	end := strings.IndexByte(p.src[at:], '"')
	if end < 0 {
		return "", p.fail(at-1, "the name has no closing double quote")
	}
	name := p.src[at : at+end]
	if strings.TrimSpace(name) == "" {
		return "", p.fail(at, "the name is blank")
	}
	p.i = at + end + 1
	if p.i >= len(p.src) || p.src[p.i] != ')' {
		return "", p.fail(p.i, "expected ) after the name")
	}
	p.i++
	return name, nil
}

// stat reads the metric's name, read already as name from start, and a
// percentile's argument.
func (p *parser) stat(e *Expr, start int, name string) error {
	switch Stat(name) {
	case Percentile:
		return p.percentile(e)
	case Min, Max, Avg, StdDev, Count, Errors, ErrorRate, QPS:
		e.Stat = Stat(name)
		return nil
	}
	if code, ok := strings.CutPrefix(name, "status_"); ok {
		if !validCode(code) {
			return p.fail(start+len("status_"), "expected a status code like 503 or a class like 5xx after status_")
		}
		e.Stat, e.Code = Status, code
		return nil
	}
	if name == "" {
		return p.fail(start, "expected a metric after the latency kind")
	}
	return p.fail(start, "unknown metric %q", name)
}

// validCode reports whether code is three digits, or a digit and "xx".
func validCode(code string) bool {
	if len(code) != 3 || code[0] < '1' || code[0] > '9' {
		return false
	}
	if code[1:] == "xx" {
		return true
	}
	return isDigit(code[1]) && isDigit(code[2])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// percentile reads "(" number ")" after p.
func (p *parser) percentile(e *Expr) error {
	if p.i >= len(p.src) || p.src[p.i] != '(' {
		return p.fail(p.i, "expected ( after p, as in p(99)")
	}
	p.i++
	p.blanks()
	at := p.i
	v, err := p.number()
	if err != nil {
		return err
	}
	if v > 100 {
		return p.fail(at, "a percentile is from 0 to 100")
	}
	p.blanks()
	if p.i >= len(p.src) || p.src[p.i] != ')' {
		return p.fail(p.i, "expected ) after the percentile")
	}
	p.i++
	e.Stat, e.P = Percentile, v
	return nil
}

// number reads the grammar's number: digits and an optional fraction.
func (p *parser) number() (float64, error) {
	start := p.i
	for p.i < len(p.src) && isDigit(p.src[p.i]) {
		p.i++
	}
	if p.i == start {
		return 0, p.fail(start, "expected a number")
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		frac := p.i
		for p.i < len(p.src) && isDigit(p.src[p.i]) {
			p.i++
		}
		if p.i == frac {
			return 0, p.fail(p.i, "expected digits after the decimal point")
		}
	}
	v, err := strconv.ParseFloat(p.src[start:p.i], 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, p.fail(start, "number out of range")
	}
	return v, nil
}

// op reads a comparison operator.
func (p *parser) op(e *Expr) error {
	p.blanks()
	for _, o := range []Op{LessEqual, GreaterEqual, Equal, NotEqual, Less, Greater} {
		if strings.HasPrefix(p.src[p.i:], string(o)) {
			e.Op = o
			p.i += len(o)
			return nil
		}
	}
	if p.i >= len(p.src) {
		return p.fail(p.i, "expected an operator (<, <=, >, >=, == or !=) after the metric")
	}
	if p.src[p.i] == '=' {
		return p.fail(p.i, "expected an operator (<, <=, >, >=, == or !=); use == for equality")
	}
	return p.fail(p.i, "expected an operator (<, <=, >, >=, == or !=)")
}

// limit reads the limit: "baseline" [ "*" number ] or a value.
func (p *parser) limit(e *Expr) error {
	p.blanks()
	if strings.HasPrefix(p.src[p.i:], "baseline") {
		if e.Scoped() {
			return p.fail(p.i, "a step's or a check's threshold takes a fixed limit, not a baseline")
		}
		p.i += len("baseline")
		e.Baseline, e.Factor = true, 1
		p.blanks()
		if p.i < len(p.src) && p.src[p.i] == '*' {
			p.i++
			p.blanks()
			f, err := p.number()
			if err != nil {
				return err
			}
			e.Factor = f
		}
		return nil
	}
	if p.i >= len(p.src) {
		return p.fail(p.i, "expected a limit after the operator")
	}
	switch {
	case e.Stat.Latency():
		return p.duration(e)
	case e.Stat == ErrorRate, e.Stat == Checks:
		return p.rate(e)
	default:
		return p.plain(e)
	}
}

// duration reads a number and a duration unit.
func (p *parser) duration(e *Expr) error {
	start := p.i
	v, err := p.number()
	if err != nil {
		if p.i > start {
			return err
		}
		return p.fail(start, "expected a duration like 250ms")
	}
	at := p.i
	for p.i < len(p.src) && p.src[p.i] != ' ' && p.src[p.i] != '\t' {
		p.i++
	}
	unit := p.src[at:p.i]
	scale, ok := durationScale(unit)
	if !ok {
		if unit == "" {
			return p.fail(at, "expected a duration like 250ms: give a unit (us, ms, s or m)")
		}
		return p.fail(at, "expected a duration like 250ms: unknown unit %q (use us, ms, s or m)", unit)
	}
	if math.IsInf(v*scale, 0) {
		return p.fail(start, "number out of range")
	}
	e.Value, e.DurationUnit = v, unit
	return nil
}

// rate reads an error rate: a fraction, or a percentage with "%".
func (p *parser) rate(e *Expr) error {
	start := p.i
	v, err := p.number()
	if err != nil {
		if p.i > start {
			return err
		}
		if e.Stat == Checks {
			return p.fail(start, "expected a share like 0.99 or 99.9%%")
		}
		return p.fail(start, "expected an error rate like 0.001 or 0.1%%")
	}
	if p.i < len(p.src) && p.src[p.i] == '%' {
		p.i++
		if v > 100 {
			return p.fail(start, "a percentage is at most 100%%")
		}
		e.Value, e.Percent = v, true
		return nil
	}
	if v > 1 {
		return p.fail(start, "%s is a fraction from 0 to 1, or a percentage like 0.1%%", e.Metric())
	}
	e.Value = v
	return nil
}

// plain reads a plain number for a count or a rate.
func (p *parser) plain(e *Expr) error {
	start := p.i
	v, err := p.number()
	if err != nil {
		if p.i > start {
			return err
		}
		return p.fail(start, "expected a number for %s", e.Metric())
	}
	if p.i < len(p.src) && p.src[p.i] != ' ' && p.src[p.i] != '\t' {
		return p.fail(p.i, "%s takes a plain number, without a unit", e.Metric())
	}
	e.Value = v
	return nil
}
