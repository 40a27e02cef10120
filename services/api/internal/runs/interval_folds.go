package runs

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// MaxIntervalStep is the widest window of IntervalWindowPage: an hour.
const MaxIntervalStep = 3600

// maxWindowSeconds bounds the seconds one page of windows folds: ten
// hours of a run's seconds, read without their histograms.
const maxWindowSeconds = 36_000

// IntervalWindowPage returns a run's seconds folded into windows of step
// seconds (FoldIntervals), for a run the caller can see: up to limit
// windows (at most MaxIntervals, and no more than maxWindowSeconds
// seconds' worth) from the window holding second from, and the start of
// the next page's first window: -1 when no later second is stored.
func (m *Measures) IntervalWindowPage(ctx context.Context, p *auth.Principal, id uuid.UUID, from, limit, step int) ([]Interval, int, error) {
	if _, _, err := m.Watch(ctx, p, id); err != nil {
		return nil, 0, err
	}
	step = min(max(step, 1), MaxIntervalStep)
	from = max(from, 0) / step * step
	to := from + min(max(limit, 1), MaxIntervals, max(1, maxWindowSeconds/step))*step
	// Seconds are distinct, so at most to-from of them lie before to: one
	// more row read tells whether any is stored after the page.
	ivs, err := m.store.RunIntervalSummaries(ctx, id, from, to-from+1)
	if err != nil {
		return nil, 0, fmt.Errorf("read intervals: %w", err)
	}
	next := -1
	if n := len(ivs); n > 0 && ivs[n-1].Second >= to {
		next = ivs[n-1].Second / step * step
		for n > 0 && ivs[n-1].Second >= to {
			n--
		}
		ivs = ivs[:n]
	}
	windows, err := FoldIntervals(ivs, step)
	if err != nil {
		return nil, 0, err
	}
	return windows, next, nil
}

// FoldIntervals folds seconds, in order, into windows of step seconds
// aligned to multiples of step, each window an Interval whose Second is
// its start and Seconds the stored seconds in it: counts, codes, bytes,
// snapshots and iterations summed, generator-limited when any second was,
// and each latency's percentiles the largest second's, so that an overview
// of a long run keeps its peaks. The windows carry no histograms.
func FoldIntervals(ivs []Interval, step int) ([]Interval, error) {
	step = max(step, 1)
	var out []Interval
	for i := range ivs {
		iv := &ivs[i]
		service, lag, err := iv.storedOrDecoded()
		if err != nil {
			return nil, err
		}
		start := iv.Second / step * step
		if len(out) == 0 || out[len(out)-1].Second != start {
			out = append(out, Interval{RunID: iv.RunID, Second: start, RetCodes: map[string]int64{}, ServiceQ: &Quantiles{}, LagQ: &Quantiles{}})
		}
		w := &out[len(out)-1]
		w.Seconds++
		w.Count += iv.Count
		w.Errors += iv.Errors
		for code, n := range iv.RetCodes {
			w.RetCodes[code] += n
		}
		w.BytesSent += iv.BytesSent
		w.BytesReceived += iv.BytesReceived
		w.Snapshots += iv.Snapshots
		w.GeneratorLimited = w.GeneratorLimited || iv.GeneratorLimited
		w.Iterations.Started += iv.Iterations.Started
		w.Iterations.Completed += iv.Iterations.Completed
		w.Iterations.Failed += iv.Iterations.Failed
		w.P50US, w.P90US, w.P99US, w.MaxUS = max(w.P50US, iv.P50US), max(w.P90US, iv.P90US), max(w.P99US, iv.P99US), max(w.MaxUS, iv.MaxUS)
		w.ServiceQ.raise(service)
		w.LagQ.raise(lag)
		if iv.UpdatedAt.After(w.UpdatedAt) {
			w.UpdatedAt = iv.UpdatedAt
		}
	}
	return out, nil
}

// storedOrDecoded returns the second's service and lag percentiles: as
// stored by ingest, else read from its histograms (a second stored before
// migration 00030).
func (iv *Interval) storedOrDecoded() (service, lag Quantiles, err error) {
	if iv.ServiceQ != nil && iv.LagQ != nil {
		return *iv.ServiceQ, *iv.LagQ, nil
	}
	s, err := LatencyOf(iv.Service)
	if err != nil {
		return Quantiles{}, Quantiles{}, fmt.Errorf("second %d service: %w", iv.Second, err)
	}
	l, err := LatencyOf(iv.Lag)
	if err != nil {
		return Quantiles{}, Quantiles{}, fmt.Errorf("second %d lag: %w", iv.Second, err)
	}
	return s.Quantiles(), l.Quantiles(), nil
}

// raise lifts each of q's figures to o's where o's is larger.
func (q *Quantiles) raise(o Quantiles) {
	q.P50US, q.P90US, q.P99US, q.MaxUS = max(q.P50US, o.P50US), max(q.P90US, o.P90US), max(q.P99US, o.P99US), max(q.MaxUS, o.MaxUS)
}
