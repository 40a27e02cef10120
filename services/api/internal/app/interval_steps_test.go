package app

import (
	"fmt"
	"math"
	"net/http"
	"testing"

	"github.com/barrage-dev/barrage/services/api/client"
)

// checkIntervalWindows reads the run's merged seconds in windows of 2
// seconds and checks each against the seconds secs it folds: sums of the
// counts and codes, the rate their mean, each percentile the largest.
func checkIntervalWindows(t *testing.T, e *apiEnv, id string, secs []client.Interval) {
	t.Helper()
	want := map[int]*client.Interval{}
	seconds := map[int]int{}
	for i := range secs {
		s := &secs[i]
		k := s.Second / 2 * 2
		w := want[k]
		if w == nil {
			w = &client.Interval{Second: k, RetCodes: client.RetCodes{}}
			want[k] = w
		}
		seconds[k]++
		w.Count += s.Count
		w.Errors += s.Errors
		w.BytesReceived += s.BytesReceived
		w.Snapshots += s.Snapshots
		for code, n := range s.RetCodes {
			w.RetCodes[code] += n
		}
		w.Response.P99Us = max(w.Response.P99Us, s.Response.P99Us)
		w.Service.MaxUs = max(w.Service.MaxUs, s.Service.MaxUs)
		w.Lag.P50Us = max(w.Lag.P50Us, s.Lag.P50Us)
	}
	got := decode[client.IntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/intervals?step=2", e.AdminToken, nil))
	if len(got.Items) != len(want) || got.NextFrom != nil {
		t.Fatalf("step=2: %d windows, next_from %v; want %d and none", len(got.Items), got.NextFrom, len(want))
	}
	for i := range got.Items {
		g := &got.Items[i]
		w, n := want[g.Second], seconds[g.Second]
		switch {
		case w == nil:
			t.Errorf("step=2: window %d folds none of the seconds", g.Second)
		case g.Seconds == nil || *g.Seconds != n || g.Count != w.Count || g.Errors != w.Errors || g.BytesReceived != w.BytesReceived || g.Snapshots != w.Snapshots:
			t.Errorf("window %d: seconds %v count %d errors %d bytes %d snapshots %d; want %d, %d, %d, %d, %d",
				g.Second, g.Seconds, g.Count, g.Errors, g.BytesReceived, g.Snapshots, n, w.Count, w.Errors, w.BytesReceived, w.Snapshots)
		case fmt.Sprint(g.RetCodes) != fmt.Sprint(w.RetCodes):
			t.Errorf("window %d: codes %v, want the sums %v", g.Second, g.RetCodes, w.RetCodes)
		case math.Abs(g.Qps-float64(w.Count)/float64(n)) > 1e-9:
			t.Errorf("window %d: qps %.3f, want the mean %.3f", g.Second, g.Qps, float64(w.Count)/float64(n))
		case g.Response.P99Us != w.Response.P99Us || g.Service.MaxUs != w.Service.MaxUs || g.Lag.P50Us != w.Lag.P50Us:
			t.Errorf("window %d: response p99 %.0f service max %.0f lag p50 %.0f; want the largest second's %.0f, %.0f, %.0f",
				g.Second, g.Response.P99Us, g.Service.MaxUs, g.Lag.P50Us, w.Response.P99Us, w.Service.MaxUs, w.Lag.P50Us)
		}
	}
	// A page of one window from an odd second starts at its window and
	// names the next; a plain second has no seconds field.
	one := decode[client.IntervalPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/intervals?step=2&limit=1&from=1", e.AdminToken, nil))
	if len(one.Items) != 1 || one.Items[0].Second != 0 || one.NextFrom == nil || *one.NextFrom != 2 {
		t.Errorf("step=2 limit=1 from=1: %d windows, next_from %v; want window 0 and next 2", len(one.Items), one.NextFrom)
	}
	if secs[0].Seconds != nil {
		t.Errorf("a plain second has seconds %d", *secs[0].Seconds)
	}
	for _, q := range []string{"step=0", "step=3601"} {
		if status, _, raw := e.do(t, http.MethodGet, "/runs/"+id+"/intervals?"+q, e.AdminToken, nil); status != http.StatusUnprocessableEntity {
			t.Errorf("%s got %d %s, want 422", q, status, raw)
		}
	}
}
