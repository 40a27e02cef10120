package remotewrite

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/hist"
	"github.com/barrage-dev/barrage/services/api/internal/promwrite"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

func TestLabelNames(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"team": "team", "app.kubernetes.io/name": "app_kubernetes_io_name", "run": "label_run",
		"__name__": "label___name__", "9lives": "label_9lives", "": "label_",
	} {
		if got := labelName(key); got != want {
			t.Errorf("labelName(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestLiveSamplesAddUpTheSeconds: the live figures are the sums of the
// seconds read, a second read again replaces itself, and the histogram's
// buckets count the latencies at or below each bound.
func TestLiveSamplesAddUpTheSeconds(t *testing.T) {
	t.Parallel()
	run := runs.Run{ID: uuid.New(), ProjectID: uuid.New(), Name: "n", QPSRequested: 50, Labels: map[string]string{"team": "a"}}
	st := newRunState(&run, map[string]string{"project": "p"})
	iv := func(sec int, count int64, lat ...time.Duration) runs.Interval {
		h := hist.New()
		for _, d := range lat {
			h.Record(d)
		}
		b, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return runs.Interval{Second: sec, Count: count, Errors: 1, RetCodes: map[string]int64{"200": count - 1, "503": 1}, Response: b, UpdatedAt: time.Unix(int64(sec), 0)}
	}
	if err := st.merge([]runs.Interval{iv(0, 3, time.Millisecond, 2*time.Millisecond, 3*time.Millisecond), iv(1, 2, 20*time.Millisecond, 30*time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	// Second 1 again, now complete: it replaces its earlier read.
	if err := st.merge([]runs.Interval{iv(1, 4, 20*time.Millisecond, 30*time.Millisecond, 40*time.Millisecond, 4*time.Second)}); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, s := range st.liveSamples(&run, time.Now()) {
		got[key(s)] = s.Value
	}
	for k, want := range map[string]float64{
		"barrage_run_requests_total":                   7,
		"barrage_run_errors_total":                     2,
		"barrage_run_responses_total code=200":         5,
		"barrage_run_responses_total code=503":         2,
		"barrage_run_qps":                              3,
		"barrage_run_target_qps":                       50,
		"barrage_run_latency_seconds_bucket le=0.0025": 2,
		"barrage_run_latency_seconds_bucket le=0.005":  3,
		"barrage_run_latency_seconds_bucket le=0.05":   6,
		"barrage_run_latency_seconds_bucket le=5":      7,
		"barrage_run_latency_seconds_bucket le=+Inf":   7,
		"barrage_run_latency_seconds_count":            7,
	} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	if q := got["barrage_run_latency_quantile_seconds quantile=0.99"]; q < 3.99 || q > 4.01 {
		t.Errorf("p99 %v s, want about 4 s", q)
	}
	var labels []string
	for _, s := range st.liveSamples(&run, time.Now())[:1] {
		for _, l := range s.Labels {
			labels = append(labels, l.Name+"="+l.Value)
		}
	}
	want := []string{"__name__=barrage_run_requests_total", "run=" + run.ID.String(), "test=", "project=p", "name=n", "team=a"}
	if !slices.Equal(labels, want) {
		t.Errorf("labels %v, want %v", labels, want)
	}
}

// key names a sample by its metric and its one extra label, if any.
func key(s promwrite.Sample) string {
	k := ""
	for _, l := range s.Labels {
		switch l.Name {
		case "__name__":
			k = l.Value + k
		case "code", "le", "quantile":
			k += " " + l.Name + "=" + l.Value
		}
	}
	return k
}

// TestOldSecondsAreFolded: seconds not updated for foldAfter leave their
// histograms to the run's totals, which stay the sums; a folded second
// read again corrects the counts.
func TestOldSecondsAreFolded(t *testing.T) {
	t.Parallel()
	run := runs.Run{ID: uuid.New()}
	st := newRunState(&run, map[string]string{"project": "p"})
	t0 := time.Unix(1_700_000_000, 0)
	enc := func(n int) []byte {
		h := hist.New()
		for range n {
			h.Record(time.Millisecond)
		}
		b, err := h.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var ivs []runs.Interval
	for sec := range 4 {
		ivs = append(ivs, runs.Interval{Second: sec, Count: 10, RetCodes: map[string]int64{"200": 10}, Response: enc(10), UpdatedAt: t0})
	}
	ivs = append(ivs, runs.Interval{Second: 10, Count: 5, RetCodes: map[string]int64{"200": 5}, Response: enc(5), UpdatedAt: t0.Add(time.Minute)})
	if err := st.merge(ivs); err != nil {
		t.Fatal(err)
	}
	if len(st.seconds) != 1 || len(st.folded) != 4 {
		t.Fatalf("%d recent and %d folded seconds, want 1 and 4", len(st.seconds), len(st.folded))
	}
	values := func() map[string]float64 {
		got := map[string]float64{}
		for _, s := range st.liveSamples(&run, t0) {
			got[key(s)] = s.Value
		}
		return got
	}
	if got := values(); got["barrage_run_requests_total"] != 45 || got["barrage_run_latency_seconds_count"] != 45 || got["barrage_run_responses_total code=200"] != 45 {
		t.Fatalf("after folding: %v", got)
	}
	// A late snapshot adds 3 requests to second 2.
	if err := st.merge([]runs.Interval{{Second: 2, Count: 13, RetCodes: map[string]int64{"200": 13}, Response: enc(13), UpdatedAt: t0.Add(2 * time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	if got := values(); got["barrage_run_requests_total"] != 48 || got["barrage_run_responses_total code=200"] != 48 {
		t.Fatalf("after a folded second changed: %v", got)
	}
}
