package app

import (
	"encoding/xml"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/client"
)

// junitReport is the part of a JUnit XML report the tests read.
type junitReport struct {
	Suites []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// junit reads GET /runs/{id}/result?format=junit.
func (e *apiEnv) junit(t *testing.T, id string) junitReport {
	t.Helper()
	status, header, raw := e.do(t, http.MethodGet, "/runs/"+id+"/result?format=junit", e.AdminToken, nil)
	if status != http.StatusOK {
		t.Fatalf("junit: status %d: %s", status, raw)
	}
	if mt, _, _ := mime.ParseMediaType(header.Get("Content-Type")); mt != "application/xml" {
		t.Errorf("junit Content-Type = %q, want application/xml", header.Get("Content-Type"))
	}
	var rep junitReport
	if err := xml.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("junit: %v\n%s", err, raw)
	}
	if len(rep.Suites) != 1 {
		t.Fatalf("junit has %d testsuites, want 1:\n%s", len(rep.Suites), raw)
	}
	return rep
}

// startJudgedRun starts a run with body against the echo and waits for
// it to end.
func (e *apiEnv) startJudgedRun(t *testing.T, body map[string]any) client.Run {
	t.Helper()
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, body))
	run := e.waitRun(t, created.Id.String(), 30*time.Second)
	if run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	return run
}

// outcomes returns a judged run's threshold results.
func outcomes(t *testing.T, run *client.Run, n int) []client.ThresholdResult {
	t.Helper()
	if run.ThresholdResults == nil || len(*run.ThresholdResults) != n {
		t.Fatalf("threshold results %v, want %d", run.ThresholdResults, n)
	}
	return *run.ThresholdResults
}

// verdict returns a run's verdict, "" for none.
func verdict(run *client.Run) string {
	if run.Verdict == nil {
		return ""
	}
	return string(*run.Verdict)
}

// TestThresholdVerdicts runs small loads against the real echo and checks
// the verdicts, the stored outcomes, the JUnit report and baselines.
func TestThresholdVerdicts(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 1)
	spec := func(query string) map[string]any {
		return map[string]any{"url": echo + "/" + query, "qps": 100, "connections": 4, "duration": "2s"}
	}

	t.Run("pass", func(t *testing.T) {
		run := e.startJudgedRun(t, map[string]any{
			"project": "default", "name": "fast", "spec": spec(""),
			"thresholds": []string{"p(99) < 10s", "error_rate == 0", "count >= 150"},
		})
		if verdict(&run) != "pass" || run.BaselineRunId != nil {
			t.Errorf("verdict %q, baseline %v; want pass without a baseline", verdict(&run), run.BaselineRunId)
		}
		sm := run.Summary
		want := []struct {
			metric   string
			observed float64
			limit    float64
		}{
			{"response.p(99)", deref(sm.P99Us), 10e6},
			{"error_rate", float64(sm.Errors) / float64(sm.Count), 0},
			{"count", float64(sm.Count), 150},
		}
		for i, o := range outcomes(t, &run, 3) {
			if o.Metric != want[i].metric || o.Observed != want[i].observed || o.Limit != want[i].limit || !o.Pass || o.Error != nil {
				t.Errorf("outcome %d = %+v; want %s observed %v (the summary's) limit %v, passed", i, o, want[i].metric, want[i].observed, want[i].limit)
			}
		}
		rep := e.junit(t, run.Id.String())
		s := rep.Suites[0]
		if s.Name != "fast" || s.Tests != 3 || s.Failures != 0 || s.Errors != 0 || s.Cases[0].Name != "p(99) < 10s" ||
			s.Cases[0].Classname != "barrage.thresholds" {
			t.Errorf("junit suite %+v, want 3 passing testcases named for the thresholds", s)
		}
	})

	t.Run("fail", func(t *testing.T) {
		run := e.startJudgedRun(t, map[string]any{
			"project": "default", "name": "slow", "spec": spec("?delay=20ms"),
			"thresholds": []string{"p(99) < 1ms", "qps >= baseline"},
		})
		if verdict(&run) != "fail" {
			t.Errorf("verdict %q, want fail", verdict(&run))
		}
		out := outcomes(t, &run, 2)
		if out[0].Pass || out[0].Observed < 20_000 || out[0].Limit != 1000 || out[0].Unit != client.UnitMicros {
			t.Errorf("p99 outcome %+v, want a failure with observed ≥ 20 ms", out[0])
		}
		if out[1].Pass || derefS(out[1].Error) != "no baseline: the run has no test" {
			t.Errorf("baseline outcome %+v, want the error of a run without a test", out[1])
		}
		s := e.junit(t, run.Id.String()).Suites[0]
		if s.Tests != 2 || s.Failures != 1 || s.Errors != 1 || s.Cases[0].Failure == nil || s.Cases[1].Error == nil {
			t.Fatalf("junit suite %+v, want one failure and one error", s)
		}
		wantMsg := fmt.Sprintf("observed %s, limit 1ms", threshold.FormatValue(out[0].Observed, threshold.Micros))
		if got := s.Cases[0].Failure.Message; got != wantMsg {
			t.Errorf("failure message %q, want %q", got, wantMsg)
		}
	})

	t.Run("baseline", func(t *testing.T) {
		stored := decode[client.Test](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken, map[string]any{
			"project": "default", "name": "checkout", "spec": spec(""), "thresholds": []string{"p(99) < baseline * 1000"},
		}))
		// The first run of the test has no baseline: it passes on its own
		// thresholds and becomes the baseline of the next.
		first := e.startJudgedRun(t, map[string]any{"test": stored.Id, "thresholds": []string{"count > 0"}})
		if verdict(&first) != "pass" {
			t.Fatalf("first run verdict %q, want pass", verdict(&first))
		}
		second := e.startJudgedRun(t, map[string]any{"test": stored.Id})
		out := outcomes(t, &second, 1)
		if verdict(&second) != "pass" || second.BaselineRunId == nil || *second.BaselineRunId != first.Id {
			t.Errorf("second run verdict %q, baseline %v; want pass against %s", verdict(&second), second.BaselineRunId, first.Id)
		}
		if want := deref(first.Summary.P99Us) * 1000; out[0].Limit != want || out[0].Observed != deref(second.Summary.P99Us) {
			t.Errorf("outcome %+v; want limit %v (the first run's p99 × 1000)", out[0], want)
		}

		// An explicit baseline: a run without a test, against the first run.
		// Its 500 ms replies stay far above 1.5 × the first run's p99 even
		// when a loaded machine gives that one a p99 of 60 ms (seen in CI
		// with delay=20ms here).
		inline := e.startJudgedRun(t, map[string]any{
			"project": "default", "name": "against first", "spec": spec("?delay=500ms"), "baseline_run": first.Id,
			"thresholds": []string{"p(99) < baseline * 1.5"},
		})
		out = outcomes(t, &inline, 1)
		if verdict(&inline) != "fail" || inline.BaselineRunId == nil || *inline.BaselineRunId != first.Id ||
			out[0].Limit != deref(first.Summary.P99Us)*1.5 || out[0].Observed < 500_000 {
			t.Errorf("explicit baseline: verdict %q baseline %v outcome %+v; want fail against %s", verdict(&inline), inline.BaselineRunId, out[0], first.Id)
		}
		queued := e.mustRun(t, e.AdminToken, "default", "never ends", nil)
		for _, bad := range []string{uuid.NewString(), queued.Id.String()} {
			status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, map[string]any{
				"project": "default", "spec": spec(""), "baseline_run": bad, "thresholds": []string{"p(99) < baseline"},
			})
			p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
			if _, ok := fieldMessage(p, "baseline_run"); !ok {
				t.Errorf("baseline_run %s: fields %v", bad, problemFields(p))
			}
		}
		e.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+queued.Id.String()+"/stop", e.AdminToken, nil)
	})

	t.Run("abort", func(t *testing.T) {
		// Half the requests fail: the abort threshold stops a 20 s run early.
		body := map[string]any{
			"project": "default", "name": "aborted",
			"spec":       map[string]any{"url": echo + "/?status=503:50", "qps": 200, "connections": 4, "duration": "20s"},
			"thresholds": []string{"error_rate < 10% abort after 200", "count > 0"},
		}
		created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, body))
		run := e.waitRun(t, created.Id.String(), 30*time.Second)
		if run.Status != "completed" || verdict(&run) != "fail" || derefS(run.AbortedBy) != "error_rate < 10% abort after 200" ||
			!strings.HasPrefix(derefS(run.Error), "aborted: error_rate < 10% abort after 200 was crossed after ") {
			t.Fatalf("status %s verdict %q aborted_by %q error %q", run.Status, verdict(&run), derefS(run.AbortedBy), derefS(run.Error))
		}
		if took := run.EndedAt.Sub(*run.StartedAt); took > 12*time.Second || run.Summary.Count >= 20*200 {
			t.Errorf("the aborted run ran %v and %d requests; a stop within seconds was expected", took, run.Summary.Count)
		}
		out := outcomes(t, &run, 2)
		if out[0].Pass || out[0].Observed < 0.3 || !out[1].Pass {
			t.Errorf("outcomes %+v; want the abort threshold failed with about 50%% errors, count passed", out)
		}
	})
}

// TestCreateRejectsBadThresholds: a threshold that does not parse is a
// validation error naming the threshold and the position.
func TestCreateRejectsBadThresholds(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	for _, path := range []string{"/runs", "/tests"} {
		body := map[string]any{"project": "default", "name": "bad", "spec": testSpec(), "thresholds": []string{"p(99) < 25xs"}}
		status, header, raw := e.do(t, http.MethodPost, path, e.AdminToken, body)
		p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
		msg, ok := fieldMessage(p, "thresholds[0]")
		if !ok || !strings.HasPrefix(msg, "at 11: expected a duration like 250ms") {
			t.Errorf("POST %s: thresholds[0] message %q, want the position and what was expected", path, msg)
		}
	}
}
