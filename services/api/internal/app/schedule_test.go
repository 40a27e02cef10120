package app

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

// scheduledTest is the body of a test with a schedule.
func scheduledTest(name, schedule, timezone string) map[string]any {
	body := map[string]any{"project": "default", "name": name, "spec": testSpec(), "schedule": schedule}
	if timezone != "" {
		body["timezone"] = timezone
	}
	return body
}

func TestTestSchedulesAPI(t *testing.T) {
	t.Parallel()
	e := startAPI(t)

	before := time.Now()
	created := decode[client.Test](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken,
		scheduledTest("every five", "*/5 * * * *", "Europe/Paris")))
	after := time.Now()
	if created.Schedule == nil || *created.Schedule != "*/5 * * * *" || created.Timezone == nil || *created.Timezone != "Europe/Paris" {
		t.Fatalf("schedule %v, timezone %v", created.Schedule, created.Timezone)
	}
	if created.NextRunAt == nil {
		t.Fatal("no next_run_at")
	}
	next := *created.NextRunAt
	// The next multiple of 5 minutes after the request.
	lo, hi := before.Truncate(5*time.Minute).Add(5*time.Minute), after.Truncate(5*time.Minute).Add(5*time.Minute)
	if next.Before(lo) || next.After(hi) || next.Minute()%5 != 0 || next.Second() != 0 {
		t.Fatalf("next_run_at = %v, want the next 5-minute mark after %v", next, before)
	}

	// A daily schedule is read in its zone: 03:00 in Paris.
	daily := decode[client.Test](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken,
		scheduledTest("nightly", "0 3 * * *", "Europe/Paris")))
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	if local := daily.NextRunAt.In(paris); local.Hour() != 3 || local.Minute() != 0 || daily.NextRunAt.Sub(before) > 24*time.Hour {
		t.Fatalf("nightly next_run_at = %v (%v in Paris), want the next 03:00 in Paris", daily.NextRunAt, local)
	}

	// Replacing without a schedule clears it.
	replaced := decode[client.Test](t, e.mustDo(t, http.StatusOK, http.MethodPut, fmt.Sprintf("/tests/%s", created.Id), e.AdminToken,
		map[string]any{"name": "every five", "spec": testSpec()}))
	if replaced.Schedule != nil || replaced.NextRunAt != nil {
		t.Fatalf("after PUT without schedule: schedule %v, next_run_at %v", replaced.Schedule, replaced.NextRunAt)
	}
	if n := e.count(t, `SELECT count(*) FROM tests WHERE id = $1 AND schedule IS NULL AND next_run_at IS NULL`, created.Id); n != 1 {
		t.Fatalf("stored test keeps its schedule")
	}
}

func TestTestSchedulesInvalid(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	tests := []struct {
		name, schedule, timezone, field string
	}{
		{name: "minute out of range", schedule: "61 * * * *", field: "schedule"},
		{name: "six fields", schedule: "0 */5 * * * *", field: "schedule"},
		{name: "zone in expression", schedule: "CRON_TZ=Europe/Paris 0 3 * * *", field: "schedule"},
		{name: "every", schedule: "@every 1s", field: "schedule"},
		{name: "unknown zone", schedule: "0 3 * * *", timezone: "Mars/Olympus", field: "timezone"},
		{name: "server zone", schedule: "0 3 * * *", timezone: "Local", field: "timezone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, header, raw := e.do(t, http.MethodPost, "/tests", e.AdminToken, scheduledTest(tt.name, tt.schedule, tt.timezone))
			p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
			if fields := problemFields(p); !slices.Equal(fields, []string{tt.field}) {
				t.Fatalf("fields = %v, want [%s]; body: %s", fields, tt.field, raw)
			}
			if msg, _ := fieldMessage(p, tt.field); msg == "" {
				t.Fatalf("no message for %s", tt.field)
			}
		})
	}
}

func TestSchedulerStartsDueRuns(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_SCHEDULE_TICK=50ms")
	body := scheduledTest("due", "0 0 1 1 *", "")
	body["baseline_last"] = 3
	test := decode[client.Test](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken, body))
	e.exec(t, `UPDATE tests SET next_run_at = now() - interval '1 minute' WHERE id = $1`, test.Id)
	waitFor(t, 10*time.Second, func() error {
		// The scheduled run pools the test's last 3 passing runs, as the test says.
		if e.count(t, `SELECT count(*) FROM runs WHERE test_id = $1 AND source = 'schedule' AND created_by IS NULL
			AND baseline_last = 3`, test.Id) == 1 {
			return nil
		}
		return errNotYet
	})
	if n := e.count(t, `SELECT count(*) FROM tests WHERE id = $1 AND next_run_at > now()`, test.Id); n != 1 {
		t.Fatal("next_run_at was not moved on")
	}
}
