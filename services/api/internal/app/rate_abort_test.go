package app

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// TestRunStopsWhenItsRateIsNotHeld: two connections against a target that
// answers in 50 ms carry at most 40 of the 200 qps asked. With
// abort_if_rate_not_held the run is stopped after 5 such seconds and fails
// with the reason and what ran; the same run without it runs its course.
func TestRunStopsWhenItsRateIsNotHeld(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 1) // capacity 2: both runs at once
	start := func(abort bool, duration string) string {
		sp := map[string]any{"url": echo + "/?delay=50ms", "qps": 200, "connections": 2, "duration": duration}
		if abort {
			sp["abort_if_rate_not_held"] = true
		}
		return decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken,
			map[string]any{"project": "default", "spec": sp})).Id.String()
	}
	aborted, steady := start(true, "30s"), start(false, "10s")

	run := e.waitRun(t, aborted, 40*time.Second)
	took := run.EndedAt.Sub(*run.StartAt) // from when the shards started sending
	t.Logf("aborted run: %s after %v, error %q", run.Status, took, derefS(run.Error))
	reason := regexp.MustCompile(`^rate not held: (\d+) qps against 200 for 5 s$`)
	m := reason.FindStringSubmatch(derefS(run.Error))
	if run.Status != "failed" || m == nil || derefS(run.AbortedBy) != "abort_if_rate_not_held" {
		t.Fatalf("status %s, error %q, aborted_by %q; want failed, rate not held", run.Status, derefS(run.Error), derefS(run.AbortedBy))
	}
	if got := m[1]; len(got) > 2 || got == "0" { // about 40 qps
		t.Errorf("achieved rate %s qps in the reason, want about 40", got)
	}
	if took < 5*time.Second || took > 9*time.Second {
		t.Errorf("the run ran %v; want it stopped within about 8 s", took)
	}
	if run.Summary == nil || run.Summary.Count < 100 || run.Summary.Count > 500 || verdict(&run) != "error" {
		t.Errorf("summary %+v verdict %q: want what ran (about 40 qps for 6-8 s) and verdict error", run.Summary, verdict(&run))
	}
	res := decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+aborted+"/result", e.AdminToken, nil))
	if res.Count != run.Summary.Count {
		t.Errorf("result count %d, summary %d", res.Count, run.Summary.Count)
	}

	run = e.waitRun(t, steady, 30*time.Second)
	if took := run.EndedAt.Sub(*run.StartAt); run.Status != "completed" || run.Error != nil || took < 9500*time.Millisecond {
		t.Errorf("the run without the flag: %s after %v, error %q; want completed after its 10 s", run.Status, took, derefS(run.Error))
	}
}
