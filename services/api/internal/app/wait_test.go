package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// TestCreateRunRejectsBadWait: ?wait= is a duration of at most 15m; a bad
// one is a 422 on wait and creates no run.
func TestCreateRunRejectsBadWait(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	for _, wait := range []string{"soon", "16m", "-1s"} {
		body := map[string]any{"project": "default", "spec": testSpec()}
		status, header, raw := e.do(t, http.MethodPost, "/runs?wait="+wait, e.AdminToken, body)
		p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
		if msg, ok := fieldMessage(p, "wait"); !ok || msg == "" {
			t.Errorf("wait=%s: problem %s does not name wait", wait, raw)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM runs`); n != 0 {
		t.Errorf("%d runs created by refused requests", n)
	}
}

// TestCreateRunWaits: POST /runs?wait= answers 201 with the ended, judged
// run; a repeat with the same Idempotency-Key waits too and answers 200;
// a wait shorter than the run answers 202 with the Location.
func TestCreateRunWaits(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 1)
	body := map[string]any{
		"project": "default", "name": "waited", "thresholds": []string{"count > 0"},
		"spec": map[string]any{"url": echo + "/", "qps": 50, "connections": 2, "duration": "1s"},
	}

	status, header, raw := e.do(t, http.MethodPost, "/runs?wait=60s", e.AdminToken, body, "Idempotency-Key", "wait-1")
	if status != http.StatusCreated {
		t.Fatalf("status %d, want 201: %s", status, raw)
	}
	run := decode[client.Run](t, raw)
	if run.Status != client.Completed || verdict(&run) != "pass" || run.Summary == nil || run.Summary.Count == 0 {
		t.Fatalf("run %+v, want completed with verdict pass and a summary", run)
	}
	outcomes(t, &run, 1)
	if want := "/api/v1/runs/" + run.Id.String(); header.Get("Location") != want {
		t.Errorf("Location %q, want %q", header.Get("Location"), want)
	}

	replay := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodPost, "/runs?wait=60s", e.AdminToken, body, "Idempotency-Key", "wait-1"))
	if replay.Id != run.Id || replay.Status != client.Completed || verdict(&replay) != "pass" {
		t.Errorf("replay %s %s %q, want run %s completed and passed", replay.Id, replay.Status, verdict(&replay), run.Id)
	}

	long := map[string]any{"project": "default", "spec": map[string]any{"url": echo + "/", "qps": 20, "connections": 1, "duration": "4s"}}
	start := time.Now()
	status, header, raw = e.do(t, http.MethodPost, "/runs?wait=1s", e.AdminToken, long)
	if status != http.StatusAccepted {
		t.Fatalf("status %d, want 202: %s", status, raw)
	}
	if took := time.Since(start); took < time.Second || took > 10*time.Second {
		t.Errorf("the 1s wait answered after %v", took)
	}
	pending := decode[client.Run](t, raw)
	if pending.Status == client.Completed || pending.Status == client.Failed || pending.Status == client.Canceled {
		t.Errorf("202 with status %s, want a run still going", pending.Status)
	}
	if want := "/api/v1/runs/" + pending.Id.String(); header.Get("Location") != want {
		t.Errorf("Location %q, want %q", header.Get("Location"), want)
	}
	e.waitRun(t, pending.Id.String(), 30*time.Second)
}

// TestCreateRunWaitEndsWithItsClient: a client that hangs up during
// ?wait= ends the wait at once, not the run, which completes as planned.
func TestCreateRunWaitEndsWithItsClient(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 1)
	posts := func() int {
		raw := string(e.mustDo(t, http.StatusOK, http.MethodGet, "/metrics", "", nil))
		n := 0
		for line := range strings.Lines(raw) {
			if strings.HasPrefix(line, `barrage_http_requests_total{`) && strings.Contains(line, `method="POST",route="/api/v1/runs"`) {
				v, _ := strconv.Atoi(strings.TrimSpace(line[strings.LastIndexByte(line, ' '):]))
				n += v
			}
		}
		return n
	}
	before := posts()
	ctx, hangUp := context.WithCancel(context.Background())
	body := map[string]any{
		"project": "default", "name": "abandoned wait",
		"spec": map[string]any{"url": echo + "/", "qps": 50, "connections": 2, "duration": "6s"},
	}
	done := make(chan error, 1)
	go func() {
		_, _, _, err := e.request(ctx, http.MethodPost, "/runs?wait=5m", e.AdminToken, body)
		done <- err
	}()
	var id string
	waitFor(t, 10*time.Second, func() error {
		if err := e.db.QueryRow("SELECT id::text FROM runs WHERE name = 'abandoned wait' AND status = 'running'").Scan(&id); err != nil {
			return fmt.Errorf("the run is not running yet: %w", err)
		}
		return nil
	})
	hangUp()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the client's request ended with %v, want its cancellation", err)
	}
	// The server's handler returns (the request is counted) while the run goes on.
	waitFor(t, 3*time.Second, func() error {
		if posts() != before+1 {
			return errors.New("the waiting handler has not returned")
		}
		return nil
	})
	if st := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id, e.AdminToken, nil)).Status; st != "running" {
		t.Errorf("right after the hang-up the run is %s, want running", st)
	}
	run := e.waitRun(t, id, 30*time.Second)
	if run.Status != "completed" || run.Summary == nil || run.Summary.Count < 200 {
		t.Errorf("the run ended %s with %v; want completed with its ~300 requests", run.Status, run.Summary)
	}
}
