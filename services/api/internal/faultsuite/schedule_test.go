//go:build faults

package faultsuite

import (
	"context"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/barrage-dev/barrage/services/api/client"
)

// scheduleTicks is how many times TestSchedulerFiresOnceWithTwoReplicas
// makes its test due: twice with both replicas, twice after the leader's
// kill -9.
const scheduleTicks = 4

// TestSchedulerFiresOnceWithTwoReplicas: two API processes on one
// database, each looking for due schedules every 500 ms; a stored test is
// made due a few seconds ahead, again and again. Each tick starts exactly
// one run, started by one replica (the advisory lock's holder), and once
// the leader is killed the other replica takes over. The schedule fires
// once a year, on January 1st, so that only the ticks the test makes are
// due: with "* * * * *" a minute's boundary falling between two ticks could
// start one run more, which the test counts as a double fire.
func TestSchedulerFiresOnceWithTwoReplicas(t *testing.T) {
	s := startStackWith(t, stackConfig{replicas: 2, agents: 1, apiEnv: []string{"BARRAGE_SCHEDULE_TICK=500ms"}})
	var test client.Test
	err := s.do(http.MethodPost, "/tests", map[string]any{"project": "default", "name": "every tick",
		"schedule": "0 0 1 1 *", "spec": map[string]any{"url": s.echoURL + "/", "qps": 10, "connections": 1, "duration": "1s"},
	}, &test)
	if err != nil {
		t.Fatalf("create the scheduled test: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db, err := pgx.Connect(ctx, s.pg.url())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	killed := -1
	for tick := 1; tick <= scheduleTicks; tick++ {
		if tick == 3 {
			killed = s.killScheduleLeader(t)
		}
		due := time.Now().Add(2 * time.Second).Truncate(time.Second)
		if _, err := db.Exec(ctx, `UPDATE tests SET next_run_at = $2 WHERE id = $1::uuid`, test.Id.String(), due); err != nil {
			t.Fatal(err)
		}
		id := waitScheduledRuns(t, db, test.Id.String(), tick)
		s.waitTerminal(t, id, 40*time.Second) // a tick is skipped while the previous run is active
	}
	time.Sleep(2 * time.Second) // more ticks of both replicas start nothing more
	waitScheduledRuns(t, db, test.Id.String(), scheduleTicks)
	s.checkScheduleLog(t, killed)
}

// waitScheduledRuns waits until the test has want scheduled runs, one per
// tick (idempotency key), and returns the newest.
func waitScheduledRuns(t *testing.T, db *pgx.Conn, testID string, want int) string {
	t.Helper()
	var newest string
	waitFor(t, 30*time.Second, fmt.Sprintf("%d scheduled runs", want), func() error {
		var runs, keys, maxPerKey int
		err := db.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM runs WHERE test_id = $1::uuid AND source = 'schedule'),
			(SELECT count(DISTINCT key) FROM idempotency_keys WHERE key LIKE 'schedule:' || $1 || ':%'),
			(SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM idempotency_keys
			   WHERE key LIKE 'schedule:' || $1 || ':%' GROUP BY key) AS k),
			coalesce((SELECT id::text FROM runs WHERE test_id = $1::uuid AND source = 'schedule'
			   ORDER BY created_at DESC LIMIT 1), '')`, testID).Scan(&runs, &keys, &maxPerKey, &newest)
		if err != nil {
			return err
		}
		if runs > want || maxPerKey > 1 {
			t.Fatalf("%d scheduled runs over %d ticks (at most %d per tick), want %d, one per tick", runs, keys, maxPerKey, want)
		}
		if runs < want || keys < want {
			return fmt.Errorf("%d scheduled runs, %d ticks", runs, keys)
		}
		return nil
	})
	return newest
}

// scheduleStarts returns, per replica, its "schedule: run started" log
// records.
func (s *stack) scheduleStarts() [][]map[string]any {
	out := make([][]map[string]any, len(s.apis))
	for i, a := range s.apis {
		out[i] = a.jsonLines("schedule: run started")
	}
	return out
}

// killScheduleLeader kills -9 the replica that started the runs so far
// and points the helpers at the other one; it returns the killed index.
func (s *stack) killScheduleLeader(t *testing.T) int {
	t.Helper()
	starts := s.scheduleStarts()
	leader := 0
	if len(starts[1]) > 0 {
		leader = 1
	}
	if len(starts[leader]) == 0 || len(starts[1-leader]) > 0 {
		t.Fatalf("runs started by replica 0: %d, by replica 1: %d; want one leader", len(starts[0]), len(starts[1]))
	}
	s.apis[leader].signal(t, syscall.SIGKILL, 5*time.Second)
	s.apiURL = s.apiURLs[1-leader]
	return leader
}

// checkScheduleLog checks that every tick's run was started once, by one
// replica: the first two by the leader, the others by the survivor.
func (s *stack) checkScheduleLog(t *testing.T, killed int) {
	t.Helper()
	starts := s.scheduleStarts()
	byKilled, bySurvivor := len(starts[killed]), len(starts[1-killed])
	if byKilled != 2 || bySurvivor != scheduleTicks-2 {
		t.Errorf("runs started by the killed leader %d, by the other replica %d; want 2 and %d", byKilled, bySurvivor, scheduleTicks-2)
	}
	for _, recs := range starts {
		for _, rec := range recs {
			if rec["created"] != true {
				t.Errorf("a replica started a tick's run that existed already: %v", rec)
			}
		}
	}
}
