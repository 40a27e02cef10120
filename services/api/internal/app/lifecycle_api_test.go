package app

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

func TestDeleteRunAPI(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	finished := func(name string) client.Run {
		t.Helper()
		run := e.mustRun(t, e.AdminToken, "default", name, nil)
		e.exec(t, "UPDATE runs SET status = 'completed', ended_at = now() WHERE id = $1::uuid", run.Id.String())
		e.exec(t, "INSERT INTO run_intervals (run_id, second, hdr) SELECT $1::uuid, s, '\\x00'::bytea FROM generate_series(0, 9) s", run.Id.String())
		return run
	}
	runner := e.mustToken(t, "default", auth.Runner)
	viewer := e.mustToken(t, "default", auth.Viewer)
	projAdmin := e.mustToken(t, "default", auth.Admin)

	run := finished("to delete")
	path := "/runs/" + run.Id.String()
	for name, tok := range map[string]string{"runner": runner, "viewer": viewer} {
		status, header, raw := e.do(t, http.MethodDelete, path, tok, nil)
		wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
		if n := e.count(t, "SELECT count(*) FROM runs WHERE id = $1::uuid", run.Id.String()); n != 1 {
			t.Fatalf("a %s's refused delete removed the run", name)
		}
	}

	active := e.mustRun(t, e.AdminToken, "default", "still queued", nil)
	status, header, raw := e.do(t, http.MethodDelete, "/runs/"+active.Id.String(), projAdmin, nil)
	if p := wantProblem(t, status, header, raw, http.StatusConflict, "conflict"); p.Detail == nil || !strings.Contains(*p.Detail, "stop it first") {
		t.Errorf("conflict of an active run: %v", p.Detail)
	}

	pinned := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodPut, path+"/pin", runner, nil))
	if !pinned.Pinned {
		t.Fatal("PUT /pin answered an unpinned run")
	}
	if got := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodGet, path, viewer, nil)); !got.Pinned {
		t.Error("GET shows the pinned run unpinned")
	}
	status, header, raw = e.do(t, http.MethodDelete, path, projAdmin, nil)
	wantProblem(t, status, header, raw, http.StatusConflict, "conflict")
	if got := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodDelete, path+"/pin", runner, nil)); got.Pinned {
		t.Error("DELETE /pin answered a pinned run")
	}

	e.mustDo(t, http.StatusNoContent, http.MethodDelete, path, projAdmin, nil)
	if n := e.count(t, "SELECT count(*) FROM run_intervals WHERE run_id = $1::uuid", run.Id.String()); n != 0 {
		t.Errorf("%d intervals of the deleted run remain", n)
	}
	status, header, raw = e.do(t, http.MethodGet, path, projAdmin, nil)
	wantProblem(t, status, header, raw, http.StatusNotFound, "not-found")
	status, header, raw = e.do(t, http.MethodDelete, "/runs/"+uuid.NewString(), projAdmin, nil)
	wantProblem(t, status, header, raw, http.StatusNotFound, "not-found")
	if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'run.delete' AND target_id = $1", run.Id.String()); n != 1 {
		t.Errorf("run.delete audit entries = %d, want 1", n)
	}

	// A baseline needs force; an org admin may delete it.
	base := finished("baseline")
	later := finished("compared")
	e.exec(t, "UPDATE runs SET baseline_run_id = $1::uuid WHERE id = $2::uuid", base.Id.String(), later.Id.String())
	status, header, raw = e.do(t, http.MethodDelete, "/runs/"+base.Id.String(), e.AdminToken, nil)
	wantProblem(t, status, header, raw, http.StatusConflict, "conflict")
	e.mustDo(t, http.StatusNoContent, http.MethodDelete, "/runs/"+base.Id.String()+"?force=true", e.AdminToken, nil)
	if got := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+later.Id.String(), viewer, nil)); got.BaselineRunId != nil {
		t.Errorf("the run that compared with the deleted baseline still links it: %v", got.BaselineRunId)
	}
}

func TestProjectRetentionAPI(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	p := decode[client.Project](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/projects/default", e.AdminToken, nil))
	if p.Retention.IntervalRetentionDays != nil || p.Retention.RunRetentionDays != nil {
		t.Fatalf("a new project's retention = %+v, want forever", p.Retention)
	}
	body := map[string]any{"retention": map[string]any{"interval_retention_days": 7, "run_retention_days": 90}}
	p = decode[client.Project](t, e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, body))
	if p.Retention.IntervalRetentionDays == nil || *p.Retention.IntervalRetentionDays != 7 || p.Retention.RunRetentionDays == nil || *p.Retention.RunRetentionDays != 90 {
		t.Errorf("retention after PATCH = %+v, want 7 and 90", p.Retention)
	}
	if n := e.count(t, "SELECT count(*) FROM projects WHERE slug = 'default' AND interval_retention_days = 7 AND run_retention_days = 90"); n != 1 {
		t.Error("the project's row lacks the retention")
	}
	bad := map[string]any{"retention": map[string]any{"interval_retention_days": 0, "run_retention_days": -3}}
	status, header, raw := e.do(t, http.MethodPatch, "/projects/default", e.AdminToken, bad)
	prob := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	fields := problemFields(prob)
	for _, f := range []string{"retention.interval_retention_days", "retention.run_retention_days"} {
		if !slices.Contains(fields, f) {
			t.Errorf("problem fields %v lack %s", fields, f)
		}
	}
	// Interval retention longer than run retention is allowed; {} is forever.
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken,
		map[string]any{"retention": map[string]any{"interval_retention_days": 400, "run_retention_days": 30}})
	p = decode[client.Project](t, e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"retention": map[string]any{}}))
	if p.Retention.IntervalRetentionDays != nil || p.Retention.RunRetentionDays != nil {
		t.Errorf("retention after {} = %+v, want forever", p.Retention)
	}
	runner := e.mustToken(t, "default", auth.Runner)
	status, header, raw = e.do(t, http.MethodPatch, "/projects/default", runner, body)
	wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
}

func TestRetentionRunsInTheServer(t *testing.T) {
	t.Parallel()
	// No schedule loop: the retention job takes the scheduler's lease itself.
	e := startAPI(t, "BARRAGE_RETENTION_INTERVAL=200ms", "BARRAGE_SCHEDULE_TICK=0")
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken,
		map[string]any{"retention": map[string]any{"interval_retention_days": 1, "run_retention_days": 30}})
	old := e.mustRun(t, e.AdminToken, "default", "old", nil)
	mid := e.mustRun(t, e.AdminToken, "default", "mid", nil)
	for id, age := range map[string]string{old.Id.String(): "40 days", mid.Id.String(): "2 days"} {
		// Intervals first: once the run is terminal, the 200 ms retention
		// loop may mark its (then empty) intervals dropped for good.
		e.exec(t, "INSERT INTO run_intervals (run_id, second, hdr) SELECT $1::uuid, s, '\\x00'::bytea FROM generate_series(0, 9) s", id)
		e.exec(t, "UPDATE runs SET status = 'completed', ended_at = now(), created_at = now() - $2::interval WHERE id = $1::uuid", id, age)
	}
	waitFor(t, testTimeout, func() error {
		if n := e.count(t, "SELECT count(*) FROM runs WHERE id = $1::uuid", old.Id.String()); n != 0 {
			return fmt.Errorf("the 40-day-old run is still there")
		}
		if n := e.count(t, "SELECT count(*) FROM run_intervals WHERE run_id = $1::uuid", mid.Id.String()); n != 0 {
			return fmt.Errorf("the 2-day-old run keeps %d intervals", n)
		}
		if n := e.count(t, "SELECT count(*) FROM audit_log WHERE action = 'retention.apply'"); n < 1 {
			return fmt.Errorf("no retention.apply audit entry yet")
		}
		return nil
	})
	got := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+mid.Id.String(), e.AdminToken, nil))
	if got.IntervalsDroppedAt == nil {
		t.Error("the 2-day-old run shows no intervals_dropped_at")
	}
}

func TestCLIRunsDeleteAndPin(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	run := e.mustRun(t, e.AdminToken, "default", "cli delete", nil)
	id := run.Id.String()
	if res := runCLI(t, e.URL, e.AdminToken, "runs", "delete", id); res.code == 0 || !strings.Contains(res.stderr, "stop it first") {
		t.Errorf("delete of a queued run: exit %d, stderr %q; want non-zero naming the stop", res.code, res.stderr)
	}
	e.exec(t, "UPDATE runs SET status = 'completed', ended_at = now() WHERE id = $1::uuid", id)
	if res := runCLI(t, e.URL, e.AdminToken, "runs", "pin", id); res.code != 0 {
		t.Fatalf("pin: exit %d", res.code)
	}
	if res := runCLI(t, e.URL, e.AdminToken, "runs", "delete", id); res.code == 0 || !strings.Contains(res.stderr, "pinned") {
		t.Errorf("delete of a pinned run: exit %d, stderr %q", res.code, res.stderr)
	}
	if res := runCLI(t, e.URL, e.AdminToken, "runs", "delete", "not-an-id"); res.code == 0 {
		t.Error("delete of a bad id exited 0")
	}
	if res := runCLI(t, e.URL, e.AdminToken, "runs", "delete", id, "-force"); res.code != 0 || !strings.Contains(res.stdout, "deleted") {
		t.Fatalf("forced delete: exit %d, stdout %q", res.code, res.stdout)
	}
	if n := e.count(t, "SELECT count(*) FROM runs WHERE id = $1::uuid", id); n != 0 {
		t.Error("the run is still there after barrage runs delete")
	}
}
