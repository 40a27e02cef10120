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
// its creator. Once the creator is demoted to viewer, the next process to
// resume it ends it as failed, saying why. (The steps' runs stay queued:
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

	b.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/members/ann@barrage.test", token, map[string]any{"role": auth.Viewer})
	stopB()
	c, _ := boot()
	waitFor(t, 30*time.Second, func() error {
		got = decode[client.Search](t, c.mustDo(t, http.StatusOK, http.MethodGet, "/searches/"+id, token, nil))
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
