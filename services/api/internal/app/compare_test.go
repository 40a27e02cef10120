package app

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// TestCompareChangesAndSpecs compares three real runs against the echo:
// an 11 s reference at 40 qps with a 5 ms delay, the same at 10 ms, and a
// short run at another rate. Each item carries its redacted spec, latency
// kind and request phases; the slower run's percentiles carry ordered 95 %
// intervals and the verdict each interval reads as; the run at another
// rate carries a note instead of estimates.
func TestCompareChangesAndSpecs(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 1)
	start := func(name, query string, qps int, duration string) client.Run {
		t.Helper()
		created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
			"project": "default", "name": name,
			"spec": map[string]any{
				"url": echo + "/?" + query + "&token=s3cret", "qps": qps, "connections": 2, "duration": duration,
				"headers": []string{"Authorization: Bearer s3cret"},
			},
		}))
		run := e.waitRun(t, created.Id.String(), 60*time.Second)
		if run.Status != "completed" {
			t.Fatalf("run %s ended %s (error %q)", name, run.Status, derefS(run.Error))
		}
		return run
	}
	ref := start("reference", "delay=5ms", 40, "11s")
	slow := start("slower", "delay=10ms", 40, "11s")
	other := start("other rate", "delay=5ms", 20, "2s")

	ids := ref.Id.String() + "," + slow.Id.String() + "," + other.Id.String()
	raw := e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/compare?ids="+ids, e.AdminToken, nil)
	if strings.Contains(string(raw), "s3cret") {
		t.Fatalf("the comparison shows a secret of a spec: %s", raw)
	}
	cmp := decode[client.RunComparison](t, raw)
	if len(cmp.Items) != 3 {
		t.Fatalf("compare items %+v", cmp.Items)
	}
	for i, want := range []struct {
		qps  float64
		path string
	}{{40, "delay=5ms"}, {40, "delay=10ms"}, {20, "delay=5ms"}} {
		c := cmp.Items[i]
		if c.Spec == nil || c.Spec.QPS != want.qps || c.Spec.Connections != 2 || !strings.Contains(c.Spec.URL, want.path) ||
			!strings.Contains(c.Spec.URL, "token=REDACTED") || len(c.Spec.Headers) != 1 || c.Spec.Headers[0] != "Authorization: REDACTED" {
			t.Errorf("item %d spec %+v; want qps %v, 2 connections, %s and redacted secrets", i, c.Spec, want.qps, want.path)
		}
		if c.LatencyKind == nil || *c.LatencyKind != client.ComparedResponse {
			t.Errorf("item %d latency kind %v, want response (open loop)", i, c.LatencyKind)
		}
		if p := c.Phases; p == nil || p.Waiting == nil || p.Receiving == nil || p.Connect == nil ||
			p.Waiting.Count != *c.Count || p.Connect.Count < 1 || p.Connect.Count > 2 || p.Waiting.P50Us <= 0 {
			t.Errorf("item %d phases %+v; want waiting for each of %d responses and a connect per connection", i, c.Phases, *c.Count)
		}
	}
	if cmp.Items[0].Change != nil {
		t.Errorf("the reference has a change %+v", cmp.Items[0].Change)
	}

	ch := cmp.Items[1].Change
	if ch == nil || ch.Note != nil || ch.Confidence != 95 || ch.Seconds == nil || *ch.Seconds < 10 || len(ch.Estimates) != 4 {
		t.Fatalf("slower run's change %+v; want 4 estimates over >= 10 s at 95 %%", ch)
	}
	for i, p := range []float64{50, 90, 99, 99.9} {
		x := ch.Estimates[i]
		if x.Percentile != p || x.RatioLow < 0 || !(x.RatioLow <= x.Ratio && x.Ratio <= x.RatioHigh) || x.ReferenceUs <= 0 ||
			x.RunUs/x.ReferenceUs != x.Ratio {
			t.Errorf("estimate %d = %+v; want p%v with 0 <= low <= ratio <= high and ratio = run / reference", i, x, p)
		}
	}
	// Twice the delay: the median is slower; the verdict is the one the
	// interval reads as (on a busy host the interval may hold 1).
	if x := ch.Estimates[0]; x.Ratio <= 1 {
		t.Errorf("p50 change %+v; want the run at twice the delay slower", x)
	}
	for _, x := range ch.Estimates {
		want := client.ChangeInconclusive
		switch {
		case x.RatioLow > 1:
			want = client.ChangeRegression
		case x.RatioHigh < 1:
			want = client.ChangeImprovement
		case x.RatioLow >= 0.95 && x.RatioHigh <= 1.05:
			want = client.ChangeNoChange
		}
		if x.Verdict != want {
			t.Errorf("p%v verdict %s for %v..%v, want %s", x.Percentile, x.Verdict, x.RatioLow, x.RatioHigh, want)
		}
	}

	// Both at 40 qps without errors: the achieved rates match, and the
	// error rates' difference is exactly 0, which is no change.
	if q := ch.Qps; q == nil || math.Abs(q.RunQps-40) > 2 || math.Abs(q.ReferenceQps-40) > 2 ||
		q.RunQps/q.ReferenceQps != q.Ratio || !(q.RatioLow <= q.Ratio && q.Ratio <= q.RatioHigh) {
		t.Errorf("qps change %+v; want both near 40 with low <= ratio = run / reference <= high", ch.Qps)
	} else if q.RatioHigh < 1 && q.Verdict != client.QPSRegression || q.RatioLow > 1 && q.Verdict != client.QPSImprovement {
		t.Errorf("qps verdict %s for %v..%v", q.Verdict, q.RatioLow, q.RatioHigh)
	}
	if er := ch.ErrorRate; er == nil || er.Run != 0 || er.Reference != 0 || er.Difference != 0 || er.DifferenceLow != 0 ||
		er.DifferenceHigh != 0 || er.Verdict != client.ErrorRateNoChange {
		t.Errorf("error rate change %+v; want 0 against 0, no change", ch.ErrorRate)
	}

	ch = cmp.Items[2].Change
	if ch == nil || len(ch.Estimates) != 0 || ch.Note == nil || !strings.Contains(*ch.Note, "40 qps") || !strings.Contains(*ch.Note, "20 qps") {
		t.Errorf("other rate's change %+v; want a note naming both rates and no estimates", ch)
	}
}
