package scenario

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/resultformat"
)

// Result is a scenario run's outcome: the native JSON of `load -scenario`.
type Result struct {
	Scenario            string  `json:"scenario"`
	IterationsPerSecond float64 `json:"iterations_per_second"`
	Concurrency         int     `json:"concurrency"`
	// ElapsedSeconds is from the first intended start to the last iteration's end.
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	// Started iterations are Completed (every step ran and passed) or Failed.
	Started   int64 `json:"started"`
	Completed int64 `json:"completed"`
	Failed    int64 `json:"failed"`
	// Iteration is the duration of whole iterations, from their intended start.
	Iteration resultformat.Latency `json:"iteration"`
	Steps     []StepResult         `json:"steps"`
}

// StepResult is one step's outcome.
type StepResult struct {
	Name string `json:"name"`
	// Count is the requests attempted; Errors those with a transport error,
	// a failed check or a failed extraction.
	Count  int64 `json:"count"`
	Errors int64 `json:"errors"`
	// Skipped is the iterations that ended before this step.
	Skipped           int64            `json:"skipped"`
	RetCodes          map[string]int64 `json:"ret_codes"`
	FailedChecks      map[string]int64 `json:"failed_checks,omitempty"`
	FailedExtractions map[string]int64 `json:"failed_extractions,omitempty"`
	TransportErrors   map[string]int64 `json:"transport_errors,omitempty"`
	// Response is from the step's intended start, Service from the
	// actual send, Lag from the intended start to the actual send.
	Response resultformat.Latency `json:"response"`
	Service  resultformat.Latency `json:"service"`
	Lag      resultformat.Latency `json:"lag"`
}

func (r *runner) result(elapsed time.Duration) (*Result, error) {
	ps := r.opts.Percentiles
	res := &Result{
		Scenario: r.opts.Plan.Name, IterationsPerSecond: r.opts.IterationsPerSecond, Concurrency: r.opts.Concurrency,
		ElapsedSeconds: elapsed.Seconds(), Started: r.iter.started.Load(), Completed: r.iter.completed, Failed: r.iter.failed,
	}
	var err error
	if res.Iteration, err = resultformat.NewLatency(r.iter.duration, ps); err != nil {
		return nil, err
	}
	for i, st := range r.opts.Plan.Steps {
		s := r.steps[i]
		sr := StepResult{
			Name: st.Name, Count: s.count, Errors: s.errors, Skipped: s.skipped.Load(), RetCodes: codeKeys(s.codes),
			FailedChecks: nonEmpty(s.failedChecks), FailedExtractions: nonEmpty(s.failedVars), TransportErrors: nonEmpty(s.transport),
		}
		if sr.Response, err = resultformat.NewLatency(s.response, ps); err != nil {
			return nil, err
		}
		if sr.Service, err = resultformat.NewLatency(s.service, ps); err != nil {
			return nil, err
		}
		if sr.Lag, err = resultformat.NewLatency(s.lag, ps); err != nil {
			return nil, err
		}
		res.Steps = append(res.Steps, sr)
	}
	return res, nil
}

func nonEmpty(m map[string]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	return m
}

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the per-step summary a person reads.
func WriteText(w io.Writer, r *Result) error {
	var b strings.Builder
	pace := fmt.Sprintf("at %g/s", r.IterationsPerSecond)
	if r.IterationsPerSecond == 0 {
		pace = fmt.Sprintf("by %d virtual users", r.Concurrency)
	}
	fmt.Fprintf(&b, "Scenario %q: %d iterations started %s over %.3fs, %d completed, %d failed\n",
		r.Scenario, r.Started, pace, r.ElapsedSeconds, r.Completed, r.Failed)
	fmt.Fprintf(&b, "Iteration duration: %s\n", quantiles(&r.Iteration))
	fmt.Fprintf(&b, "%-20s %8s %8s %8s  %s\n", "step", "count", "errors", "skipped", "response time")
	for i := range r.Steps {
		s := &r.Steps[i]
		fmt.Fprintf(&b, "%-20s %8d %8d %8d  %s\n", s.Name, s.Count, s.Errors, s.Skipped, quantiles(&s.Response))
		writeCounts(&b, "failed check", s.FailedChecks)
		writeCounts(&b, "failed extraction", s.FailedExtractions)
		writeCounts(&b, "no response", s.TransportErrors)
		writeCounts(&b, "code", s.RetCodes)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func quantiles(l *resultformat.Latency) string {
	if l.Count == 0 {
		return "-"
	}
	parts := make([]string, 0, len(l.Percentiles))
	for _, p := range l.Percentiles {
		parts = append(parts, fmt.Sprintf("p%g %s", p.P, time.Duration(p.Value*float64(time.Second)).Round(time.Microsecond)))
	}
	return strings.Join(parts, " ")
}

func writeCounts(b *strings.Builder, what string, m map[string]int64) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(b, "    %s %q: %d\n", what, k, m[k])
	}
}
