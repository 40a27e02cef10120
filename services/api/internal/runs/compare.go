package runs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/verdict"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// Figures of a comparison's changes.
const (
	// CompareConfidence is the level of the intervals of a comparison.
	CompareConfidence = 0.95
	// rateTolerance is how far apart, relatively, two runs' asked rates may
	// be for their change to be estimated, here and by a confidence
	// threshold against its baseline (docs/verdicts.md).
	rateTolerance = 0.01
	// compareBudget bounds the time one comparison spends estimating
	// changes: a pair of 10-minute runs at 200 qps takes about 0.5 s on
	// two cores, so 19 pairs of hour-long runs could outlast the write
	// timeout. The runs left when it is spent get a note instead.
	compareBudget = 10 * time.Second
)

// ComparePercentiles are the latency percentiles whose change against the
// reference a comparison estimates.
func ComparePercentiles() []float64 { return []float64{50, 90, 99, 99.9} }

// Compared is one run of a comparison; Result is nil until it has one.
type Compared struct {
	Run    Run
	Result *Result
	// Change is the run against the reference (the first run compared);
	// nil for the reference itself and for runs without a result.
	Change *Change
}

// Change is a run's latency percentiles against the reference's, with
// intervals from pkg/verdict, or the note saying why they are absent.
type Change struct {
	// Note says why Estimates is empty: the runs are not comparable or
	// too short. Empty when there are estimates.
	Note string
	// Seconds is the measured seconds of the shorter of the two runs.
	Seconds int
	// Estimates are the ComparePercentiles, in order.
	Estimates []PercentileChange
	// QPS is the achieved rate's ratio; ErrorRate the difference of the
	// error rates (fractions). Both nil with Note.
	QPS       *RateChange
	ErrorRate *RateChange
}

// RateChange is a run's achieved rate or error rate against the
// reference's: Change is the ratio of rates (qps) or the difference of
// error rates, with its interval at CompareConfidence.
type RateChange struct {
	Run, Reference float64
	Change         verdict.Interval
	Call           verdict.Call
}

// PercentileChange is one percentile of a run against the reference's.
type PercentileChange struct {
	Percentile float64
	// RunUS and ReferenceUS are the percentile over each run's measured
	// seconds (the warm-up and a cut-short last second left out).
	RunUS, ReferenceUS float64
	// Ratio is RunUS / ReferenceUS with its interval at CompareConfidence.
	Ratio verdict.Interval
	Call  verdict.Call
}

// Compare returns MinCompare to MaxCompare runs the caller can see, in the
// order given, each with its result when it has one and, after the first
// (the reference), its change against the reference. The first unknown or
// invisible id is a NotFound naming it.
func (m *Measures) Compare(ctx context.Context, p *auth.Principal, ids []uuid.UUID) ([]Compared, error) {
	if len(ids) < MinCompare || len(ids) > MaxCompare {
		return nil, apperr.Invalidf("ids", "give %d to %d run ids; got %d", MinCompare, MaxCompare, len(ids))
	}
	out := make([]Compared, len(ids))
	for i, id := range ids {
		w, r, err := m.Watch(ctx, p, id)
		if err != nil {
			return nil, err
		}
		out[i].Run = r
		res, err := w.Result(ctx, r)
		switch {
		case apperr.Is(err, apperr.Conflict):
		case err != nil:
			return nil, err
		default:
			out[i].Result = &res
		}
	}
	ref := out[0]
	if ref.Result == nil {
		return out, nil
	}
	var refSeconds []verdict.Second
	started := time.Now()
	for i := 1; i < len(out); i++ {
		c := &out[i]
		if c.Result == nil {
			continue
		}
		if note := Incomparable(c.Run, *c.Result, ref.Run, *ref.Result); note != "" {
			c.Change = &Change{Note: note}
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("compare runs: %w", err)
		}
		if time.Since(started) > compareBudget {
			c.Change = &Change{Note: "not estimated: the comparison spent its time on the runs before this one; compare fewer or shorter runs"}
			continue
		}
		if refSeconds == nil {
			s, err := m.seconds(ctx, ref.Run)
			if err != nil {
				return nil, err
			}
			refSeconds = s
		}
		s, err := m.seconds(ctx, c.Run)
		if err != nil {
			return nil, err
		}
		if c.Change, err = change(s, refSeconds, max(c.Run.WarmupSeconds(), ref.Run.WarmupSeconds())); err != nil {
			return nil, fmt.Errorf("compare run %s with %s: %w", c.Run.ID, ref.Run.ID, err)
		}
	}
	return out, nil
}

// change estimates the percentiles of run against ref.
func change(run, ref []verdict.Second, warmup int) (*Change, error) {
	c, err := verdict.Compare(run, ref, verdict.Options{Percentiles: ComparePercentiles(), Warmup: warmup})
	if errors.Is(err, verdict.ErrTooShort) {
		return &Change{Note: fmt.Sprintf("too few measured seconds to estimate the change: each run needs %d after its warm-up", verdict.MinSeconds)}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("estimate: %w", err)
	}
	out := &Change{Seconds: min(c.RunSeconds, c.BaseSeconds)}
	for _, e := range c.Estimates {
		if e.Metric.P < 0 {
			continue
		}
		iv, ok := e.Ratio(CompareConfidence)
		if !ok { // the reference recorded nothing
			continue
		}
		// The few-blocks widening (pkg/verdict/widen.go) stretches the
		// interval around its median and can take a short run's lower
		// bound below 0, which no ratio of latencies reaches.
		iv.Low = max(iv.Low, 0)
		out.Estimates = append(out.Estimates, PercentileChange{
			Percentile: e.Metric.P, RunUS: e.Run, ReferenceUS: e.Base, Ratio: iv, Call: verdict.CallLatency(iv, verdict.NoChangeBand),
		})
	}
	if len(out.Estimates) == 0 {
		out.Note = "the reference run recorded no latency to compare with"
		return out, nil
	}
	if e, ok := c.Find(verdict.QPS); ok {
		if iv, ok := e.Ratio(CompareConfidence); ok {
			iv.Low = max(iv.Low, 0)
			out.QPS = &RateChange{Run: e.Run, Reference: e.Base, Change: iv, Call: verdict.CallQPS(iv, verdict.NoChangeBand)}
		}
	}
	if e, ok := c.Find(verdict.ErrorRate); ok {
		iv := e.Margin(1, CompareConfidence)
		// Widened bounds may pass what a difference of two fractions
		// can reach.
		iv.Low, iv.High = max(iv.Low, -e.Base), min(iv.High, 1-e.Base)
		out.ErrorRate = &RateChange{Run: e.Run, Reference: e.Base, Change: iv, Call: verdict.CallErrorRate(iv, verdict.ErrorRateBand)}
	}
	return out, nil
}

// seconds reads all of a run's stored seconds as pkg/verdict compares
// them, with the histograms of its headline latency.
func (m *Measures) seconds(ctx context.Context, r Run) ([]verdict.Second, error) {
	var out []verdict.Second
	for from := 0; ; {
		ivs, err := m.store.RunIntervals(ctx, r.ID, from, MaxIntervals)
		if err != nil {
			return nil, fmt.Errorf("read seconds of run %s: %w", r.ID, err)
		}
		for i := range ivs {
			iv := &ivs[i]
			s := verdict.Second{Count: iv.Count, Errors: iv.Errors}
			enc := iv.Service
			if r.OpenLoop() {
				enc = iv.Response
			}
			if len(enc) > 0 {
				if s.Latency, err = hist.Decode(enc); err != nil {
					return nil, fmt.Errorf("decode second %d of run %s: %w", iv.Second, r.ID, err)
				}
			}
			out = append(out, s)
		}
		if len(ivs) < MaxIntervals {
			return out, nil
		}
		from = ivs[len(ivs)-1].Second + 1
	}
}

// WarmupSeconds is the seconds of the run's ramp, left out of a
// comparison's estimates.
func (r Run) WarmupSeconds() int {
	if r.Spec.Ramp == nil {
		return 0
	}
	return int(math.Ceil(r.Spec.Ramp.Over.Std().Seconds()))
}

// Incomparable says why the change of run (with result res) against the
// reference ref cannot be estimated, or "" when it can: docs/verdicts.md
// states the assumptions (per-second histograms, a whole completed run,
// the same protocol and a single, equal rate).
func Incomparable(run Run, res Result, ref Run, refRes Result) string {
	switch {
	case res.Imported != nil || refRes.Imported != nil:
		return "an imported run has no per-second histograms to estimate a change from"
	case !run.IntervalsDroppedAt.IsZero() || !ref.IntervalsDroppedAt.IsZero():
		return "the per-second histograms of a run were dropped by retention"
	case run.Status != Completed || ref.Status != Completed:
		return "both runs must have completed"
	case run.Degraded || ref.Degraded:
		return "a degraded run (it lost a shard) is not a whole run"
	}
	return Mismatch(run, ref, "the reference")
}

// Mismatch says why run's latency cannot be set against other's, named
// otherName in the reason ("the reference", "the baseline run"), or ""
// when it can: the same protocol and a single rate, equal within 1 %.
func Mismatch(run, other Run, otherName string) string {
	switch {
	case run.Spec.Protocol() != other.Spec.Protocol():
		return fmt.Sprintf("%s used %s, this run %s: compare runs over the same protocol", otherName, protocolName(other.Spec), protocolName(run.Spec))
	case len(run.Spec.Stages) > 0 || len(other.Spec.Stages) > 0:
		return "a stepped load shape (stages) has no single rate to compare at"
	}
	r, b := run.Spec.PeakQPS(), other.Spec.PeakQPS()
	if (r == 0) != (b == 0) || (r > 0 && math.Abs(r-b) > rateTolerance*b) {
		return fmt.Sprintf("%s asked for %s, this run %s: compare runs at the same rate", otherName, rateName(b), rateName(r))
	}
	return ""
}

func protocolName(s spec.Spec) string {
	if p := s.Protocol(); p != spec.ProtocolUnknown {
		return string(p)
	}
	return "an unknown protocol"
}

func rateName(qps float64) string {
	if qps == 0 {
		return "no set rate (as fast as it can)"
	}
	return fmt.Sprintf("%g qps", qps)
}
