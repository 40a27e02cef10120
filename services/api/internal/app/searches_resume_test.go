package app

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/pgtest"
)

// TestSearchResumedByAnotherProcess: a search started by a runner on one
// API process is resumed, when that process stops, by the next one on the
// same database: it goes on with the step run it had (no second run), as
// its creator. When its step passed meanwhile, the next process replays it
// and starts the next step; when a process died between starting a step's
// run and saving the step, the next one gets that run back. Once the
// creator is demoted to viewer, the next process to resume it ends it as
// failed, saying why. (The steps' runs stay queued:
// no agent runs here; the fault suite's TestAPIKilledMidSearch runs a
// whole search through a kill -9.)
func TestSearchResumedByAnotherProcess(t *testing.T) {
	t.Parallel()
	token := auth.NewToken().Text
	environ := append(baseEnv(token), "DATABASE_URL="+pgtest.NewDatabase(t), "BARRAGE_NATS_LISTEN=127.0.0.1:0",
		"BARRAGE_DISPATCH_WAIT=1h", "BARRAGE_SECRET_KEY="+testSecretKey, "BARRAGE_SEARCH_LEASE=3s")
	boot := func() (*apiEnv, func()) {
		e := &apiEnv{AdminToken: token}
		return e, serveAPI(t, e, append(environ, "BARRAGE_NATS_DATA_DIR="+t.TempDir()))
	}
	a, stopA := boot()
	ann := a.mustMemberToken(t, "ann", "default", auth.Runner).Secret
	body := searchBody("default", "resumed")
	body["spec"].(map[string]any)["headers"] = []string{"Authorization: Bearer resume-secret-5678"}
	sr := decode[client.Search](t, a.mustDo(t, http.StatusCreated, http.MethodPost, "/searches", ann, body))
	id := sr.Id.String()
	driverA := a.driverOf(t, id)
	stopA() // gives up the lease

	b, stopB := boot()
	waitFor(t, 30*time.Second, func() error {
		if b.driverOf(t, id) == driverA {
			return fmt.Errorf("search %s still leased by the stopped process", id)
		}
		return nil
	})
	got := decode[client.Search](t, b.mustDo(t, http.StatusOK, http.MethodGet, "/searches/"+id, token, nil))
	if got.Status != client.SearchRunning || len(got.Steps) != 1 || *got.Steps[0].RunId != *sr.Steps[0].RunId {
		t.Fatalf("resumed search: %s with %d steps; want running on its first step's run %s", got.Status, len(got.Steps), sr.Steps[0].RunId)
	}
	if n := b.count(t, `SELECT count(*) FROM runs WHERE labels->>'search' = $1`, id); n != 1 {
		t.Fatalf("%d runs of the search; want 1", n)
	}
	if raw := b.mustDo(t, http.StatusOK, http.MethodGet, "/searches/"+id, token, nil); strings.Contains(string(raw), "resume-secret-5678") {
		t.Fatalf("the resumed search shows its secret: %s", raw)
	}

	// Its first step passed while no process drove it: the next one
	// starts the second step, at twice the rate.
	stopB()
	b.exec(t, `UPDATE search_steps SET status = 'passed', finished_at = now() WHERE search_id = $1::uuid AND step = 0`, id)
	c, stopC := boot()
	second := c.waitSteps(t, id, token, 2)[1]
	if second.Qps != 20 || second.Status != client.StepRunning || second.RunId == nil {
		t.Fatalf("second step after the replay: %v qps %s run %v; want 20 qps running its run", second.Qps, second.Status, second.RunId)
	}
	// That process died after starting the step's run but before saving
	// the step: the next one gets the same run back, not a second one.
	stopC()
	c.exec(t, `DELETE FROM search_steps WHERE search_id = $1::uuid AND step = 1`, id)
	d, stopD := boot()
	if again := d.waitSteps(t, id, token, 2)[1]; again.RunId == nil || *again.RunId != *second.RunId {
		t.Fatalf("second step started again as run %v; want its run %s", again.RunId, second.RunId)
	}
	if n := d.count(t, `SELECT count(*) FROM runs WHERE labels->>'search' = $1`, id); n != 2 {
		t.Fatalf("%d runs of the search after two steps; want 2", n)
	}

	d.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/members/ann@barrage.test", token, map[string]any{"role": auth.Viewer})
	stopD()
	e, _ := boot()
	waitFor(t, 30*time.Second, func() error {
		got = decode[client.Search](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/searches/"+id, token, nil))
		if got.Status == client.SearchRunning {
			return fmt.Errorf("search %s still running", id)
		}
		return nil
	})
	if got.Status != client.SearchFailed || !strings.Contains(got.Message, "ann@barrage.test no longer holds the runner role") {
		t.Fatalf("search resumed with its creator demoted: %s %q; want failed naming the creator and the role", got.Status, got.Message)
	}
}

// driverOf returns the process that holds the lease of search id.
func (e *apiEnv) driverOf(t *testing.T, id string) string {
	t.Helper()
	var driver string
	if err := e.db.QueryRow(`SELECT driver::text FROM searches WHERE id = $1::uuid`, id).Scan(&driver); err != nil {
		t.Fatal(err)
	}
	return driver
}

// waitSteps waits until search id has n steps and returns them.
func (e *apiEnv) waitSteps(t *testing.T, id, token string, n int) []client.SearchStep {
	t.Helper()
	var sr client.Search
	waitFor(t, 30*time.Second, func() error {
		sr = decode[client.Search](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/searches/"+id, token, nil))
		if len(sr.Steps) < n {
			return fmt.Errorf("search %s: %s with %d steps, want %d", id, sr.Status, len(sr.Steps), n)
		}
		return nil
	})
	return sr.Steps
}

// TestSearchResumedWithAnotherKey: a replica whose BARRAGE_SECRET_KEY is
// not the one that sealed a search's base spec cannot start its next
// steps: it ends the search as failed, naming the key problem.
func TestSearchResumedWithAnotherKey(t *testing.T) {
	t.Parallel()
	token := auth.NewToken().Text
	environ := append(baseEnv(token), "DATABASE_URL="+pgtest.NewDatabase(t), "BARRAGE_NATS_LISTEN=127.0.0.1:0",
		"BARRAGE_DISPATCH_WAIT=1h", "BARRAGE_SEARCH_LEASE=3s")
	boot := func(key string) (*apiEnv, func()) {
		e := &apiEnv{AdminToken: token}
		return e, serveAPI(t, e, append(environ, "BARRAGE_NATS_DATA_DIR="+t.TempDir(), "BARRAGE_SECRET_KEY="+key))
	}
	a, stopA := boot(testSecretKey)
	sr := decode[client.Search](t, a.mustDo(t, http.StatusCreated, http.MethodPost, "/searches", token, searchBody("default", "sealed")))
	stopA()
	b, _ := boot(testSecretKeyB)
	var got client.Search
	waitFor(t, 30*time.Second, func() error {
		got = decode[client.Search](t, b.mustDo(t, http.StatusOK, http.MethodGet, "/searches/"+sr.Id.String(), token, nil))
		if got.Status == client.SearchRunning {
			return fmt.Errorf("search %s still running", sr.Id)
		}
		return nil
	})
	if got.Status != client.SearchFailed || !strings.Contains(got.Message, "BARRAGE_SECRET_KEY") || !strings.Contains(got.Message, "sealed under another key") {
		t.Fatalf("search resumed under another key: %s %q; want failed naming the key", got.Status, got.Message)
	}
}
