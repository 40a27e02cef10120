package runs

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// Limits of the measurement reads.
const (
	// MaxIntervals is the most seconds one read of a run's series returns:
	// an hour, so that the result page of an hour-long run reads its
	// seconds in one request (issue 31).
	MaxIntervals = 3600
	// MaxShardSeconds is the most seconds one read of a run's per-shard
	// series returns (a row per shard each).
	MaxShardSeconds = 1000
	// MinCompare and MaxCompare bound the runs of one comparison.
	MinCompare = 2
	MaxCompare = 20
)

// MeasureStore is the storage the measurement reads need.
type MeasureStore interface {
	// GetRun returns a run by id; NotFound when there is none.
	GetRun(ctx context.Context, id uuid.UUID) (Run, error)
	// RunIntervals returns up to limit seconds of a run from second from
	// on, in order.
	RunIntervals(ctx context.Context, runID uuid.UUID, from, limit int) ([]Interval, error)
	// RunIntervalSummaries is RunIntervals for a reader of the seconds'
	// figures only: a second whose percentiles are stored (ServiceQ and
	// LagQ set) comes without its histograms.
	RunIntervalSummaries(ctx context.Context, runID uuid.UUID, from, limit int) ([]Interval, error)
	// RunIntervalMarks is RunIntervals without the figures: each second's
	// snapshot and request counts.
	RunIntervalMarks(ctx context.Context, runID uuid.UUID, from, limit int) ([]IntervalMark, error)
	// RunShardSeconds returns the per-shard rows of up to limit stored
	// seconds of a run from second from on, by second then shard, and the
	// next page's from (-1 when none is stored after them).
	RunShardSeconds(ctx context.Context, runID uuid.UUID, from, limit int) ([]ShardSecond, int, error)
	// RunShardWindows returns a row per shard and window of step seconds
	// (Watch.ShardWindows) for the seconds in [from, to), and whether any
	// second is stored from to on.
	RunShardWindows(ctx context.Context, runID uuid.UUID, from, to, step int) ([]ShardSecond, bool, error)
	// RunResult returns a run's merged result; NotFound until it has one.
	RunResult(ctx context.Context, runID uuid.UUID) (Result, error)
	// RunTimeline returns a run's merged timeline; NotFound when it has none.
	RunTimeline(ctx context.Context, runID uuid.UUID) (Timeline, error)
	// ShardProgress returns a run's shards in index order; none before
	// it is dispatched.
	ShardProgress(ctx context.Context, runID uuid.UUID) ([]ShardProgress, error)
	// WrittenURLCount returns the written URLs stored for a run.
	WrittenURLCount(ctx context.Context, runID uuid.UUID) (int64, error)
	// WrittenURLs returns up to limit written URLs of a run after the one
	// at after, in order.
	WrittenURLs(ctx context.Context, runID uuid.UUID, after WrittenURLKey, limit int) ([]WrittenURL, error)
}

// Measures reads what runs measured: their per-second series, shards,
// merged results and comparisons, for callers who may view the run.
type Measures struct {
	runs  *Service
	store MeasureStore
}

// NewMeasures returns Measures that check access with runSvc and read st.
func NewMeasures(runSvc *Service, st MeasureStore) *Measures {
	return &Measures{runs: runSvc, store: st}
}

// Watch is read access to one run, granted once by Measures.Watch: a live
// stream re-reads the run without checking the caller again.
type Watch struct {
	id    uuid.UUID
	store MeasureStore
}

// Watch checks that the caller may view run id and returns read access to
// it, and the run as it is now.
func (m *Measures) Watch(ctx context.Context, p *auth.Principal, id uuid.UUID) (*Watch, Run, error) {
	r, err := m.runs.Get(ctx, p, id)
	if err != nil {
		return nil, Run{}, err
	}
	return &Watch{id: id, store: m.store}, r, nil
}

// ID returns the run's id.
func (w *Watch) ID() uuid.UUID { return w.id }

// Run returns the run as it is now.
func (w *Watch) Run(ctx context.Context) (Run, error) {
	r, err := w.store.GetRun(ctx, w.id)
	if err != nil {
		return Run{}, fmt.Errorf("read run %s: %w", w.id, err)
	}
	return r, nil
}

// Intervals returns up to limit (at most MaxIntervals) seconds from second
// from on.
func (w *Watch) Intervals(ctx context.Context, from, limit int) ([]Interval, error) {
	limit = min(max(limit, 1), MaxIntervals)
	ivs, err := w.store.RunIntervals(ctx, w.id, max(from, 0), limit)
	if err != nil {
		return nil, fmt.Errorf("read intervals: %w", err)
	}
	return ivs, nil
}

// IntervalMark names what one stored second holds: how many shard
// snapshots are merged in it (a second only grows, so the run, second and
// snapshots name its content) and its request count.
type IntervalMark struct {
	Second    int
	Snapshots int
	Count     int64
}

// Marks returns up to limit (at most MaxIntervals) seconds' marks from
// second from on: a cheap read for a live stream to tell which seconds
// changed.
func (w *Watch) Marks(ctx context.Context, from, limit int) ([]IntervalMark, error) {
	limit = min(max(limit, 1), MaxIntervals)
	marks, err := w.store.RunIntervalMarks(ctx, w.id, max(from, 0), limit)
	if err != nil {
		return nil, fmt.Errorf("read interval marks: %w", err)
	}
	return marks, nil
}

// Shards returns the run's shards in index order.
func (w *Watch) Shards(ctx context.Context) ([]ShardProgress, error) {
	shards, err := w.store.ShardProgress(ctx, w.id)
	if err != nil {
		return nil, fmt.Errorf("read shards: %w", err)
	}
	return shards, nil
}

// Result returns the run's merged result; a Conflict until it has one.
func (w *Watch) Result(ctx context.Context, r Run) (Result, error) {
	res, err := w.store.RunResult(ctx, w.id)
	if apperr.Is(err, apperr.NotFound) {
		return Result{}, apperr.New(apperr.Conflict, "run %s is %s and has no result yet", w.id, r.Status)
	}
	if err != nil {
		return Result{}, fmt.Errorf("read result: %w", err)
	}
	if res.WrittenURLs, err = writtenURLCounts(ctx, w.store, r, res); err != nil {
		return Result{}, err
	}
	return res, nil
}

// Intervals returns up to limit seconds of a run the caller can see, from
// second from on.
func (m *Measures) Intervals(ctx context.Context, p *auth.Principal, id uuid.UUID, from, limit int) ([]Interval, error) {
	w, _, err := m.Watch(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return w.Intervals(ctx, from, limit)
}

// IntervalPage returns up to limit (at most MaxIntervals) seconds from
// second from on, for a run the caller can see, and the first second of
// the next page: -1 when no later second is stored, so that a reader of
// the last page asks for no empty one after it.
func (m *Measures) IntervalPage(ctx context.Context, p *auth.Principal, id uuid.UUID, from, limit int) ([]Interval, int, error) {
	if _, _, err := m.Watch(ctx, p, id); err != nil {
		return nil, 0, err
	}
	limit = min(max(limit, 1), MaxIntervals)
	ivs, err := m.store.RunIntervalSummaries(ctx, id, max(from, 0), limit+1)
	if err != nil {
		return nil, 0, fmt.Errorf("read intervals: %w", err)
	}
	if len(ivs) <= limit {
		return ivs, -1, nil
	}
	return ivs[:limit], ivs[limit].Second, nil
}

// Shards returns the shards of a run the caller can see, in index order.
func (m *Measures) Shards(ctx context.Context, p *auth.Principal, id uuid.UUID) ([]ShardProgress, error) {
	w, _, err := m.Watch(ctx, p, id)
	if err != nil {
		return nil, err
	}
	return w.Shards(ctx)
}

// Result returns a run the caller can see and its merged result; a
// Conflict until it has one.
func (m *Measures) Result(ctx context.Context, p *auth.Principal, id uuid.UUID) (Run, Result, error) {
	w, r, err := m.Watch(ctx, p, id)
	if err != nil {
		return Run{}, Result{}, err
	}
	res, err := w.Result(ctx, r)
	if err != nil {
		return Run{}, Result{}, err
	}
	return r, res, nil
}

// Timeline returns the merged per-request timeline of a run the caller can
// see; a Conflict until the run has ended, an empty timeline for an ended
// run that has none (no request completed, or an imported run).
func (m *Measures) Timeline(ctx context.Context, p *auth.Principal, id uuid.UUID) (Run, Timeline, error) {
	_, r, err := m.Watch(ctx, p, id)
	if err != nil {
		return Run{}, Timeline{}, err
	}
	tl, err := m.store.RunTimeline(ctx, id)
	switch {
	case apperr.Is(err, apperr.NotFound) && !r.Status.Terminal():
		return Run{}, Timeline{}, apperr.New(apperr.Conflict, "run %s is %s and has no timeline yet", id, r.Status)
	case apperr.Is(err, apperr.NotFound):
		return r, Timeline{Samples: []TimelineSample{}}, nil
	case err != nil:
		return Run{}, Timeline{}, fmt.Errorf("read timeline: %w", err)
	}
	return r, tl, nil
}

// OpenLoop reports whether the run paced a target rate, which makes
// response time (rather than service time) its headline latency (docs/architecture.md §4).
func (r Run) OpenLoop() bool { return r.Spec.PeakQPS() > 0 }

// Latency is the figures of one latency histogram, in microseconds.
type Latency struct {
	Count    int64
	MinUS    float64
	AvgUS    float64
	StdDevUS float64
	P50US    float64
	P75US    float64
	P90US    float64
	P99US    float64
	P999US   float64
	MaxUS    float64
}

// LatencyOf decodes an HdrHistogram encoding (pkg/hist) and returns its
// figures; an empty encoding has none.
func LatencyOf(enc []byte) (Latency, error) {
	if len(enc) == 0 {
		return Latency{}, nil
	}
	h, err := hist.Decode(enc)
	if err != nil {
		return Latency{}, fmt.Errorf("decode histogram: %w", err)
	}
	q := h.Percentiles([]float64{50, 75, 90, 99, 99.9})
	us := func(i int) float64 { return micros(q[i].Value) }
	return Latency{
		Count: h.Count(), MinUS: micros(h.Min()), AvgUS: finite(h.MeanMicros()),
		StdDevUS: finite(h.StdDevMicros()), P50US: us(0), P75US: us(1), P90US: us(2), P99US: us(3), P999US: us(4),
		MaxUS: micros(h.Max()),
	}, nil
}

// Quantiles returns the four figures of l a second of a run keeps.
func (l Latency) Quantiles() Quantiles {
	return Quantiles{P50US: l.P50US, P90US: l.P90US, P99US: l.P99US, MaxUS: l.MaxUS}
}

// micros converts a duration to microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// finite returns v, or 0 for NaN and infinities (an empty histogram's mean).
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// QPS returns the result's rate: requests per second over its duration.
func (r Result) QPS() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.Count) / r.Duration.Seconds()
}
