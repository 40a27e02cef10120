package engine

import (
	"context"
	"math"
	"testing"
	"time"
)

// TestTimelineSamplesTheWholeRun runs 50,000 requests and checks the final
// snapshot's timeline: exactly 10,000 of them, spread over the run, with the
// codes and latencies the client gave.
func TestTimelineSamplesTheWholeRun(t *testing.T) {
	const n = 50_000
	slow := func(i int64) bool { return i%50 == 0 }
	f := &sleepFactory{
		latency: func(i int64) time.Duration {
			if slow(i) {
				return 2 * time.Millisecond
			}
			return 0
		},
		code: func(i int64) int32 {
			if slow(i) {
				return 503
			}
			return 200
		},
	}
	final := mustRun(t, context.Background(), Options{Factory: f, Connections: 8, Pacing: Open, QPS: 20_000, Count: n})
	if final.Count != n || final.TimelineSeen != n {
		t.Fatalf("count %d, timeline seen %d, want %d", final.Count, final.TimelineSeen, n)
	}
	if len(final.Timeline) != 10_000 {
		t.Fatalf("timeline holds %d samples, want 10000", len(final.Timeline))
	}
	run := final.End.Sub(final.Start)
	first, last, errs := time.Duration(math.MaxInt64), time.Duration(0), 0
	for _, s := range final.Timeline {
		first, last = min(first, s.Sent), max(last, s.Sent)
		if s.Sent < 0 || s.Sent > run || s.Intended < 0 || s.Intended > s.Sent+time.Millisecond || s.Entry != -1 {
			t.Fatalf("sample %+v out of a run of %v", s, run)
		}
		switch {
		case s.Code == 503 && !s.OK && s.Latency >= 2*time.Millisecond:
			errs++
		case s.Code == 200 && s.OK && s.Latency >= 0 && s.Latency < time.Second:
		default:
			t.Fatalf("sample %+v: code, ok and latency do not match what the client did", s)
		}
	}
	if span := last - first; span < run*9/10 {
		t.Errorf("samples span %v of a run of %v, want >= 90 %%", span, run)
	}
	if errs < 120 || errs > 280 { // 2 % of 10,000
		t.Errorf("%d samples of 503, want ~200", errs)
	}
}

func TestTimelineOffAndSmallRuns(t *testing.T) {
	f := &sleepFactory{}
	final := mustRun(t, context.Background(), Options{Factory: f, Connections: 2, Pacing: Closed, Count: 500, Timeline: -1})
	if final.Timeline != nil || final.TimelineSeen != 0 {
		t.Fatalf("timeline off: %d samples of %d", len(final.Timeline), final.TimelineSeen)
	}
	final = mustRun(t, context.Background(), Options{Factory: f, Connections: 3, Pacing: Closed, Count: 500})
	if len(final.Timeline) != 500 || final.TimelineSeen != 500 {
		t.Fatalf("500 requests: %d samples of %d, want every one", len(final.Timeline), final.TimelineSeen)
	}
}
