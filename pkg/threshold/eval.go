package threshold

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// Observed is the merged result of a run, as thresholds see it.
type Observed struct {
	Count  int64
	Errors int64
	// QPS is the achieved rate over the run.
	QPS float64
	// Codes counts results by code ("200", "503", "-1" ...).
	Codes map[string]int64
	// Response, Service and Lag are the merged latency histograms; nil is
	// treated as empty.
	Response *hist.Histogram
	Service  *hist.Histogram
	Lag      *hist.Histogram
	// Primary is the kind an expression without one refers to: Response
	// or Service.
	Primary Kind
	// Seconds are the run's seconds in order, which confidence forms
	// resample; Warmup is how many of them to leave out at the start.
	Seconds []Second
	Warmup  int
	// NotComparable, on a baseline, says why confidence forms cannot
	// compare a run with it (another rate or protocol, a degraded run):
	// they are inconclusive with that note.
	NotComparable string
	// Parts, on a baseline made by Pool, are the runs pooled into it:
	// confidence forms resample their joined seconds (verdict.Pool).
	Parts []Observed
	// Steps are a scenario run's steps by name, each as its own result
	// (with the run's Primary); Checks its checks by name. Both are nil
	// for other runs.
	Steps  map[string]*Observed
	Checks map[string]CheckCount
}

// CheckCount is how often a scenario's check, over every step that has a
// check of its name, was evaluated (once per response) and failed.
type CheckCount struct {
	Evaluated, Failed int64
}

// Outcome is the evaluation of one expression.
type Outcome struct {
	// Expression is the expression in canonical form (Expr.String).
	Expression string
	// Metric names the metric, with the latency kind it resolved to:
	// "response.p(99)", "error_rate".
	Metric string
	// Unit is the unit of Observed and Limit.
	Unit Unit
	// Observed is the metric's value on the run, and Limit what it was
	// compared with (for a baseline form, the baseline's value times the
	// factor).
	Observed float64
	Limit    float64
	// Pass is set when the comparison holds. It is false when Error is set.
	Pass bool
	// Inconclusive is set when a confidence form's interval straddles its
	// limit, or it could not be estimated (Note says why): neither pass
	// nor fail.
	Inconclusive bool
	// Note explains an inconclusive outcome.
	Note string
	// Estimate is what a confidence form measured; nil otherwise.
	Estimate *Estimate
	// Error says why the expression could not be evaluated (no baseline,
	// no latency recorded).
	Error string
}

// ErrNoBaseline is the Outcome.Error of a baseline form evaluated without
// a baseline run.
const ErrNoBaseline = "no baseline run"

// Eval evaluates e on a run's result, with the metric on base as the
// limit of a baseline form; base may be nil.
func (e Expr) Eval(obs Observed, base *Observed) Outcome {
	out := Outcome{Expression: e.String(), Metric: e.resolved(obs.Primary).Metric(), Unit: e.Unit()}
	v, err := e.value(obs)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Observed = v
	if e.Baseline {
		if base == nil {
			out.Error = ErrNoBaseline
			return out
		}
		if e.Confidence > 0 && base.NotComparable != "" {
			out.Inconclusive, out.Note = true, base.NotComparable
			return out
		}
		b, err := e.value(*base)
		if err != nil {
			out.Error = "baseline: " + err.Error()
			return out
		}
		out.Limit = b * e.Factor
		if e.Confidence > 0 {
			e.evalConfident(obs, *base, &out)
			return out
		}
	} else {
		out.Limit = e.Limit()
	}
	out.Pass = e.Op.holds(out.Observed, out.Limit)
	return out
}

// resolved returns e with the primary kind replaced by the run's.
func (e Expr) resolved(primary Kind) Expr {
	if e.Stat.Latency() && e.Kind == Primary {
		e.Kind = primary
		if e.Kind == Primary {
			e.Kind = Response
		}
	}
	return e
}

// value returns the metric of e on obs, in the metric's unit.
func (e Expr) value(obs Observed) (float64, error) {
	if e.Step != "" {
		s := obs.Steps[e.Step]
		if s == nil {
			return 0, fmt.Errorf("the run's result has no step named %q", e.Step)
		}
		obs = *s
	}
	switch e.Stat {
	case Checks:
		c := obs.Checks[e.Check]
		if c.Evaluated == 0 {
			return 0, fmt.Errorf("no response was checked by a check named %q", e.Check)
		}
		return 1 - float64(c.Failed)/float64(c.Evaluated), nil
	case Count:
		return float64(obs.Count), nil
	case Errors:
		return float64(obs.Errors), nil
	case ErrorRate:
		if obs.Count == 0 {
			return 0, fmt.Errorf("no requests completed: the error rate is undefined")
		}
		return float64(obs.Errors) / float64(obs.Count), nil
	case QPS:
		return obs.QPS, nil
	case Status:
		return float64(codeCount(obs.Codes, e.Code)), nil
	}
	kind := e.resolved(obs.Primary).Kind
	h := obs.Service
	switch kind {
	case Response:
		h = obs.Response
	case Lag:
		h = obs.Lag
	}
	if h == nil || h.Count() == 0 {
		return 0, fmt.Errorf("no %s latency recorded", kind)
	}
	switch e.Stat {
	case Percentile:
		return micros(h.Percentile(e.P).Nanoseconds()), nil
	case Min:
		return micros(h.Min().Nanoseconds()), nil
	case Max:
		return micros(h.Max().Nanoseconds()), nil
	case Avg:
		return h.MeanMicros(), nil
	default:
		return h.StdDevMicros(), nil
	}
}

func micros(ns int64) float64 { return float64(ns) / 1e3 }

// codeCount sums the results whose code is code ("503") or in its class
// ("5xx").
func codeCount(codes map[string]int64, code string) int64 {
	if !strings.HasSuffix(code, "xx") {
		return codes[code]
	}
	var n int64
	for c, v := range codes {
		if len(c) == 3 && c[0] == code[0] && isDigit(c[1]) && isDigit(c[2]) {
			n += v
		}
	}
	return n
}

// FormatValue writes a value of unit u for people: latencies as
// durations ("23.4ms"), ratios as percentages ("0.1%").
func FormatValue(v float64, u Unit) string {
	switch u {
	case Micros:
		switch {
		case v >= 1e6:
			return trim(v/1e6) + "s"
		case v >= 1e3:
			return trim(v/1e3) + "ms"
		default:
			return trim(v) + "us"
		}
	case Ratio:
		return trim(v*100) + "%"
	default:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// trim writes v with up to 4 significant decimals.
func trim(v float64) string {
	return strconv.FormatFloat(v, 'g', 4, 64)
}
