// Package threshold parses and evaluates the pass/fail conditions a run is
// judged by, such as "p(99) < 250ms" or "error_rate < 0.1%".
//
// # Grammar
//
// An expression compares one metric of a run with a limit:
//
//	expression = metric op limit [ "@" number "%" ] [ "abort" [ "after" digits ] ]
//	metric     = [ "step(" name ")." ] ( [ kind "." ] latency | counter ) | "checks(" name ")"
//	name       = '"' { any character but '"' } '"'      (a scenario's step or check)
//	kind       = "response" | "service" | "lag"
//	latency    = "p(" number ")" | "min" | "max" | "avg" | "stddev"
//	counter    = "count" | "errors" | "error_rate" | "qps" | "status_" class
//	class      = digit "xx" | digit digit digit      (status_5xx, status_503)
//	op         = "<" | "<=" | ">" | ">=" | "==" | "!="
//	limit      = value | "baseline" [ "*" number ]
//	number     = digit { digit } [ "." digit { digit } ]
//
// Blanks (spaces and tabs) may separate the parts; names are lower case.
// The value of a limit depends on the metric:
//
//   - latencies take a duration: a number and one of the units us (or µs),
//     ms, s and m, as in 250ms or 1.5s. A bare number is rejected rather
//     than guessed at.
//   - error_rate takes a fraction from 0 to 1 (0.001) or a percentage up to
//     100 (0.1%).
//   - count, errors, qps and status_* take a plain number.
//
// "step(NAME)." scopes a metric to one step of a scenario run
// (docs/scenarios.md): step("checkout").p(99) < 300ms judges that step's
// requests only. It takes the latencies, count, errors, error_rate and
// status_*, with a fixed limit. "checks(NAME)" is the share of the
// responses a named check passed, over every step that has a check of
// that name, and takes a limit like error_rate's: checks("status is 200")
// > 99.9%. Neither takes a baseline nor aborts a run.
//
// A latency without a kind is the run's primary latency: the response time
// (which counts the wait of a late request) when the run paces a target
// rate, the service time when it runs as fast as it can. p(N) takes a
// percentile from 0 to 100.
//
// "baseline" is the same metric measured on the baseline run (the last
// passing run of the same test), optionally scaled: "p(99) < baseline *
// 1.10" fails when p99 regressed by 10 % or more.
//
// "@ 95%" after a baseline limit makes it a confidence form:
// "p(99) < baseline * 1.10 @ 95%" estimates the run's p99 against the
// baseline's with a 95 % confidence interval from both runs' per-second
// histograms (pkg/verdict), and fails only when the whole interval lies
// beyond the limit, passes when it lies wholly within it, and is
// inconclusive otherwise (docs/verdicts.md). It takes p(N) of any kind,
// error_rate and qps, with <, <=, > or >=, at a level from 50 % to 99.9 %.
//
// "abort" makes the threshold stop the run as soon as it is crossed while
// the run goes on, once at least the "after" number of requests (default
// DefaultAbortAfter) completed; the run's verdict is then fail. Only
// counters that can be judged on a part of a run may abort: errors,
// error_rate and status_*. Aborts never use a baseline.
//
// Errors give the position (the character, from 1) where the expression
// went wrong.
//
// The package does not choose the baseline run nor store outcomes: the
// API does both.
package threshold

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is a latency kind (docs/architecture.md §4).
type Kind string

// Latency kinds.
const (
	// Primary is the run's primary latency: Response for a paced run,
	// Service otherwise.
	Primary Kind = ""
	// Response is from the intended send time to the end of the response.
	Response Kind = "response"
	// Service is from the actual send time to the end of the response.
	Service Kind = "service"
	// Lag is from the intended to the actual send time.
	Lag Kind = "lag"
)

// Stat is what a metric measures.
type Stat string

// Stats.
const (
	// Percentile is p(N) of a latency.
	Percentile Stat = "p"
	// Min is the lowest latency.
	Min Stat = "min"
	// Max is the highest latency.
	Max Stat = "max"
	// Avg is the mean latency.
	Avg Stat = "avg"
	// StdDev is the standard deviation of a latency.
	StdDev Stat = "stddev"
	// Count is the number of requests completed.
	Count Stat = "count"
	// Errors is the number of requests that failed.
	Errors Stat = "errors"
	// ErrorRate is Errors / Count, a fraction.
	ErrorRate Stat = "error_rate"
	// QPS is the achieved rate of requests per second.
	QPS Stat = "qps"
	// Status is the number of results with a status code or class.
	Status Stat = "status"
	// Checks is the share of responses a scenario's named check passed, a
	// fraction.
	Checks Stat = "checks"
)

// Latency reports whether s is a statistic of a latency histogram.
func (s Stat) Latency() bool {
	switch s {
	case Percentile, Min, Max, Avg, StdDev:
		return true
	default:
		return false
	}
}

// Op is a comparison operator.
type Op string

// Operators.
const (
	Less         Op = "<"
	LessEqual    Op = "<="
	Greater      Op = ">"
	GreaterEqual Op = ">="
	Equal        Op = "=="
	NotEqual     Op = "!="
)

// holds reports whether "a op b".
func (o Op) holds(a, b float64) bool {
	switch o {
	case Less:
		return a < b
	case LessEqual:
		return a <= b
	case Greater:
		return a > b
	case GreaterEqual:
		return a >= b
	case Equal:
		return a == b
	default:
		return a != b
	}
}

// Unit is the unit of a metric's values.
type Unit string

// Units of values.
const (
	// Micros is microseconds, for latencies.
	Micros Unit = "us"
	// Ratio is a fraction from 0 to 1, for error_rate.
	Ratio Unit = "ratio"
	// Number is a plain count or rate.
	Number Unit = ""
)

// durationScale returns the microseconds in one of a duration unit.
func durationScale(unit string) (float64, bool) {
	switch unit {
	case "us", "µs":
		return 1, true
	case "ms":
		return 1e3, true
	case "s":
		return 1e6, true
	case "m":
		return 60e6, true
	default:
		return 0, false
	}
}

// Expr is a parsed threshold expression.
type Expr struct {
	// Kind is the latency kind of a latency metric; Primary otherwise.
	Kind Kind
	Stat Stat
	// P is the percentile of Stat Percentile, from 0 to 100.
	P float64
	// Code is the status code ("503") or class ("5xx") of Stat Status.
	Code string
	// Step scopes the metric to the scenario step of this name; "" for
	// the whole run.
	Step string
	// Check is the check's name of Stat Checks.
	Check string
	Op    Op
	// Baseline is set when the limit is the metric on the baseline run
	// times Factor.
	Baseline bool
	Factor   float64
	// Confidence is the level of a confidence form, in percent (95); 0
	// for a plain comparison.
	Confidence float64
	// Value is the limit as written, in DurationUnit for a latency and as
	// a percentage when Percent is set; see Limit for it in the metric's
	// unit.
	Value        float64
	DurationUnit string
	Percent      bool
	// Abort stops the run when the threshold is crossed while it goes on,
	// once AbortAfter requests completed.
	Abort      bool
	AbortAfter int64
}

// Bounds of a confidence level, in percent.
const (
	MinConfidence = 50
	MaxConfidence = 99.9
)

// Confident reports whether s can be judged by a confidence form: it is
// estimated from the runs' seconds by pkg/verdict.
func (s Stat) Confident() bool { return s == Percentile || s == ErrorRate || s == QPS }

// DefaultAbortAfter is the fewest requests an abort threshold is checked
// on when the expression does not say.
const DefaultAbortAfter = 100

// MaxAbortAfter bounds the "after" number of an abort threshold.
const MaxAbortAfter = 1_000_000_000

// CanAbort reports whether a metric can be judged while the run goes on.
func (s Stat) CanAbort() bool { return s == ErrorRate || s == Errors || s == Status }

// Scoped reports whether e judges a scenario's step or check
// (step("NAME"). or checks("NAME")) rather than the whole run: only fixed
// limits judge those, and only runs of a scenario have them.
func (e Expr) Scoped() bool { return e.Step != "" || e.Stat == Checks }

// Metric names the metric, with its kind when written: "response.p(99)",
// "max", "error_rate", "status_5xx".
func (e Expr) Metric() string {
	var b strings.Builder
	if e.Step != "" {
		b.WriteString(`step("` + e.Step + `").`)
	}
	if e.Kind != Primary {
		b.WriteString(string(e.Kind) + ".")
	}
	switch e.Stat {
	case Percentile:
		b.WriteString("p(" + formatNumber(e.P) + ")")
	case Status:
		b.WriteString("status_" + e.Code)
	case Checks:
		b.WriteString(`checks("` + e.Check + `")`)
	default:
		b.WriteString(string(e.Stat))
	}
	return b.String()
}

// Unit returns the unit of the metric's observed values and limits.
func (e Expr) Unit() Unit {
	switch {
	case e.Stat.Latency():
		return Micros
	case e.Stat == ErrorRate, e.Stat == Checks:
		return Ratio
	default:
		return Number
	}
}

// Limit returns the fixed limit in the metric's unit (microseconds for a
// latency, a fraction for error_rate). It is meaningless when Baseline is
// set.
func (e Expr) Limit() float64 {
	switch {
	case e.Stat.Latency():
		scale, _ := durationScale(e.DurationUnit)
		return e.Value * scale
	case e.Percent:
		return e.Value / 100
	default:
		return e.Value
	}
}

// String returns the expression in the canonical form, which parses back
// to the same Expr.
func (e Expr) String() string {
	limit := "baseline"
	switch {
	case e.Baseline && e.Factor != 1:
		limit += " * " + formatNumber(e.Factor)
	case e.Baseline:
	case e.Percent:
		limit = formatNumber(e.Value) + "%"
	default:
		limit = formatNumber(e.Value) + e.DurationUnit
	}
	out := e.Metric() + " " + string(e.Op) + " " + limit
	if e.Confidence > 0 {
		out += " @ " + formatNumber(e.Confidence) + "%"
	}
	if e.Abort {
		out += " abort"
		if e.AbortAfter != DefaultAbortAfter {
			out += " after " + strconv.FormatInt(e.AbortAfter, 10)
		}
	}
	return out
}

// formatNumber writes v as the grammar's number: digits, an optional
// fraction, never an exponent.
func formatNumber(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// SyntaxError is an expression that does not parse.
type SyntaxError struct {
	// Pos is the character, counted from 1, where parsing stopped.
	Pos int
	Msg string
}

// Error returns "at POS: MSG".
func (e *SyntaxError) Error() string { return fmt.Sprintf("at %d: %s", e.Pos, e.Msg) }
