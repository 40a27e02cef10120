package remotewrite

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/services/api/internal/promwrite"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Metric names of the samples sent (docs/observability.md).
const (
	MetricRequests  = "barrage_run_requests_total"
	MetricErrors    = "barrage_run_errors_total"
	MetricResponses = "barrage_run_responses_total"
	MetricQPS       = "barrage_run_qps"
	MetricTargetQPS = "barrage_run_target_qps"
	MetricLatency   = "barrage_run_latency_seconds"
	MetricQuantile  = "barrage_run_latency_quantile_seconds"
)

// LatencyBuckets are the upper bounds, in seconds, of the classic
// histogram of a run's response latency (corrected for coordinated
// omission, as the run's own percentiles).
func LatencyBuckets() []float64 {
	return []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
}

// Quantiles are the latency quantiles sent as gauges, from the HDR
// histogram itself (exact to its 0.1 % precision).
func Quantiles() []float64 { return []float64{0.5, 0.9, 0.99, 0.999} }

// Names lists every metric the exporter sends, the histogram's series
// included, for the dashboards' test.
func Names() []string {
	return []string{MetricRequests, MetricErrors, MetricResponses, MetricQPS, MetricTargetQPS,
		MetricLatency + "_bucket", MetricLatency + "_sum", MetricLatency + "_count", MetricQuantile}
}

// reservedLabel reports whether n is one of the exporter's own labels (or
// one Prometheus sets); a run label of that name is sent as label_<name>.
func reservedLabel(n string) bool {
	switch n {
	case "run", "test", "project", "name", "code", "le", "quantile", "job", "instance":
		return true
	}
	return false
}

var invalidLabelChars = regexp.MustCompile(`[^a-zA-Z0-9_]`)

// labelName turns a run label's key into a Prometheus label name.
func labelName(key string) string {
	n := invalidLabelChars.ReplaceAllString(key, "_")
	if n == "" || reservedLabel(n) || (n[0] >= '0' && n[0] <= '9') || len(n) > 1 && n[:2] == "__" {
		n = "label_" + n
	}
	return n
}

// second is one stored second of a run.
type second struct {
	count, errors int64
	codes         map[string]int64
	latency       *hist.Histogram // nil before any value
	updated       time.Time
}

// foldAfter is how long after its last update a second is folded into a
// run's running totals: an HDR histogram holds about 190 KB in memory, so
// only the recent seconds keep one each.
const foldAfter = 10 * time.Second

// runState is what the exporter knows of one run.
type runState struct {
	projectID uuid.UUID
	labels    []promwrite.Label // run, test, project, name and the run's labels
	// seconds are the recent seconds; older ones are folded into base and
	// keep only their counts in folded. A folded second updated again
	// (a late snapshot) corrects the counts, not the histogram: the live
	// latency may then miss those few values, the final figures never do.
	seconds map[int]second
	folded  map[int]second
	base    figures
	// mark is the latest update time of the seconds read.
	mark time.Time
	// final is set once the run's result was sent.
	final bool
}

func newRunState(r *runs.Run, project map[string]string) *runState {
	test := ""
	if r.TestID != uuid.Nil {
		test = r.TestID.String()
	}
	labels := []promwrite.Label{{Name: "run", Value: r.ID.String()}, {Name: "test", Value: test},
		{Name: "project", Value: project["project"]}, {Name: "name", Value: r.Name}}
	taken := map[string]bool{}
	for _, k := range slices.Sorted(maps.Keys(r.Labels)) {
		n := labelName(k)
		if taken[n] {
			continue // two keys that map to one name: the first wins
		}
		taken[n] = true
		labels = append(labels, promwrite.Label{Name: n, Value: r.Labels[k]})
	}
	return &runState{projectID: r.ProjectID, labels: labels, seconds: map[int]second{}, folded: map[int]second{},
		base: figures{codes: map[string]int64{}, latency: hist.New()}}
}

// merge takes in seconds stored or changed since the last read, then
// folds the seconds not updated for foldAfter.
func (st *runState) merge(changed []runs.Interval) error {
	for i := range changed {
		iv := &changed[i]
		s := second{count: iv.Count, errors: iv.Errors, codes: iv.RetCodes, updated: iv.UpdatedAt}
		if old, ok := st.folded[iv.Second]; ok {
			st.base.add(s, 1, old)
			st.folded[iv.Second] = s
		} else {
			if len(iv.Response) > 0 {
				h, err := hist.Decode(iv.Response)
				if err != nil {
					return fmt.Errorf("second %d: %w", iv.Second, err)
				}
				s.latency = h
			}
			st.seconds[iv.Second] = s
		}
		if iv.UpdatedAt.After(st.mark) {
			st.mark = iv.UpdatedAt
		}
	}
	for k, s := range st.seconds {
		if !s.updated.Before(st.mark.Add(-foldAfter)) || k >= st.last()-1 {
			continue
		}
		st.base.add(s, 1, second{})
		if s.latency != nil {
			_ = st.base.latency.Merge(s.latency) // decoded with the fixed configuration
		}
		s.latency = nil
		st.folded[k] = s
		delete(st.seconds, k)
	}
	return nil
}

// last is the latest second read.
func (st *runState) last() int {
	n := -1
	for k := range st.seconds {
		n = max(n, k)
	}
	for k := range st.folded {
		n = max(n, k)
	}
	return n
}

// figures are a run's totals at one time.
type figures struct {
	count, errors int64
	codes         map[string]int64
	latency       *hist.Histogram
	qps, target   float64
}

// add adds sign × s to f's counts, less old's (for a second read again).
func (f *figures) add(s second, sign int64, old second) {
	f.count += sign*s.count - old.count
	f.errors += sign*s.errors - old.errors
	for c, n := range s.codes {
		f.codes[c] += sign * n
	}
	for c, n := range old.codes {
		f.codes[c] -= n
	}
}

// liveSamples are the samples of a running run from its seconds so far;
// its achieved qps is its last complete second's count.
func (st *runState) liveSamples(r *runs.Run, now time.Time) []promwrite.Sample {
	f := figures{count: st.base.count, errors: st.base.errors, codes: maps.Clone(st.base.codes), latency: hist.New(), target: r.QPSRequested}
	_ = f.latency.Merge(st.base.latency)
	for _, s := range st.seconds {
		f.add(s, 1, second{})
		if s.latency != nil {
			_ = f.latency.Merge(s.latency)
		}
	}
	if last := st.last(); last >= 1 {
		prev, ok := st.seconds[last-1]
		if !ok {
			prev = st.folded[last-1]
		}
		f.qps = float64(prev.count)
	}
	return st.build(f, now)
}

// finalSamples are the samples of an ended run from its stored result.
func (st *runState) finalSamples(r *runs.Run, res *runs.Result, now time.Time) ([]promwrite.Sample, error) {
	f := figures{count: res.Count, errors: res.Errors, codes: res.RetCodes, latency: hist.New(), target: r.QPSRequested}
	if len(res.Response) > 0 {
		h, err := hist.Decode(res.Response)
		if err != nil {
			return nil, fmt.Errorf("result histogram: %w", err)
		}
		f.latency = h
	}
	if res.Duration > 0 {
		f.qps = float64(res.Count) / res.Duration.Seconds()
	}
	return st.build(f, now), nil
}

// build turns figures into samples at now.
func (st *runState) build(f figures, now time.Time) []promwrite.Sample {
	out := make([]promwrite.Sample, 0, 32+len(f.codes))
	add := func(name string, v float64, extra ...promwrite.Label) {
		labels := make([]promwrite.Label, 0, len(st.labels)+1+len(extra))
		labels = append(append(append(labels, promwrite.Label{Name: "__name__", Value: name}), st.labels...), extra...)
		out = append(out, promwrite.Sample{Labels: labels, Value: v, At: now})
	}
	add(MetricRequests, float64(f.count))
	add(MetricErrors, float64(f.errors))
	for _, c := range slices.Sorted(maps.Keys(f.codes)) {
		add(MetricResponses, float64(f.codes[c]), promwrite.Label{Name: "code", Value: c})
	}
	add(MetricQPS, f.qps)
	add(MetricTargetQPS, f.target)
	buckets := LatencyBuckets()
	bounds := make([]int64, len(buckets))
	for i, b := range buckets {
		bounds[i] = int64(b * 1e6)
	}
	n := f.latency.Count()
	for i, c := range f.latency.CountsAtOrBelow(bounds) {
		add(MetricLatency+"_bucket", float64(c), promwrite.Label{Name: "le", Value: strconv.FormatFloat(buckets[i], 'g', -1, 64)})
	}
	add(MetricLatency+"_bucket", float64(n), promwrite.Label{Name: "le", Value: "+Inf"})
	add(MetricLatency+"_sum", f.latency.MeanMicros()*float64(n)/1e6)
	add(MetricLatency+"_count", float64(n))
	quantiles := Quantiles()
	qs := make([]float64, len(quantiles))
	for i, q := range quantiles {
		qs[i] = q * 100
	}
	for i, q := range f.latency.Percentiles(qs) {
		add(MetricQuantile, q.Value.Seconds(), promwrite.Label{Name: "quantile", Value: strconv.FormatFloat(quantiles[i], 'g', -1, 64)})
	}
	return out
}
