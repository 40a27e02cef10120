package app

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/pgtest"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
)

// testSecretKeyB is the key TestSecretKeyRotation rotates to from
// testSecretKey.
const testSecretKeyB = "QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI="

// TestSecretKeyRotation: a stored test and a queued run are sealed under
// key A; after a restart with key B current and A previous the queued run
// dispatches and the test runs, both sending the real secret; `key rotate`
// re-seals the rows under B (and a second rotate changes nothing); after a
// restart with B alone the test still runs with its secret, and a restart
// with A alone refuses the secret naming B's key id.
func TestSecretKeyRotation(t *testing.T) { // serial: see heavyTests
	ns := natsembed.StartT(t)
	dbURL := pgtest.NewDatabase(t)
	token := auth.NewToken().Text
	env := func(keys ...string) []string {
		return append([]string{"DATABASE_URL=" + dbURL, "NATS_URL=" + ns.URL(), "BARRAGE_DISPATCH_WAIT=30s"}, keys...)
	}
	target, last := startSecretTarget(t)
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	sp := map[string]any{"url": "http://" + u.Host + "/", "qps": 20, "connections": 1, "duration": "1s",
		"headers": []string{"Authorization: Bearer " + secretBearer}}
	wantSeen := func(what string, from int) {
		t.Helper()
		seen, n := last()
		if n <= from || seen.authorization != "Bearer "+secretBearer {
			t.Errorf("%s: target saw %d requests, last Authorization %q; want the real secret", what, n-from, seen.authorization)
		}
	}
	runTest := func(e *apiEnv, testID string) client.Run {
		t.Helper()
		created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{"test": testID}))
		return e.waitRun(t, created.Id.String(), 40*time.Second)
	}

	// Key A, no agent: the run stays queued with its spec sealed in the outbox.
	e1, stop1 := startRestartableAPI(t, token, env("BARRAGE_SECRET_KEY="+testSecretKey, "BARRAGE_DISPATCH_WAIT=1h")...)
	test := decode[client.Test](t, e1.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e1.AdminToken,
		map[string]any{"project": "default", "name": "rotation", "spec": sp}))
	queued := decode[client.Run](t, e1.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e1.AdminToken,
		map[string]any{"project": "default", "name": "queued under A", "spec": sp}))
	e1.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/remote-write", e1.AdminToken,
		map[string]any{"url": "http://127.0.0.1:9/api/v1/write", "bearer_token": secretBearer, "enabled": false})
	stop1()
	idA, idB := mustKeyID(t, testSecretKey), mustKeyID(t, testSecretKeyB)
	if got := sealedKeyIDs(t, e1); !allEqual(got, idA) || len(got) != 2 {
		t.Fatalf("sealed values under keys %v, want the test and the run under A (%s)", got, idA)
	}

	// B current, A previous: the queued run and the test run with the secret.
	e2, stop2 := startRestartableAPI(t, token, env("BARRAGE_SECRET_KEY="+testSecretKeyB, "BARRAGE_SECRET_KEYS_PREVIOUS="+testSecretKey)...)
	startAgents(t, ns.URL(), 1)
	if run := e2.waitRun(t, queued.Id.String(), 40*time.Second); run.Status != "completed" {
		t.Fatalf("queued run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	wantSeen("queued run", 0)
	_, before := last()
	if run := runTest(e2, test.Id.String()); run.Status != "completed" {
		t.Fatalf("test run under B+A ended %s (error %q)", run.Status, derefS(run.Error))
	}
	wantSeen("test run under B+A", before)
	stop2()

	// Rotate: every sealed value is now under B; again, nothing changes.
	rotEnv := []string{"DATABASE_URL=" + dbURL, "BARRAGE_SECRET_KEY=" + testSecretKeyB, "BARRAGE_SECRET_KEYS_PREVIOUS=" + testSecretKey}
	for _, want := range []string{
		"key " + idB + ": tests: 1 re-sealed, 0 already current, 0 failed; outbox: 1 re-sealed, 1 already current, 0 failed; searches: 0 re-sealed, 0 already current, 0 failed; remote writes: 1 re-sealed, 0 already current, 0 failed\n",
		"key " + idB + ": tests: 0 re-sealed, 1 already current, 0 failed; outbox: 0 re-sealed, 2 already current, 0 failed; searches: 0 re-sealed, 0 already current, 0 failed; remote writes: 0 re-sealed, 1 already current, 0 failed\n",
	} {
		code, stdout, stderr := runMain(t, rotEnv, "key", "rotate", "-batch", "1")
		if code != 0 || stdout != want {
			t.Fatalf("key rotate: exit %d, stdout %q, stderr %q; want 0 and %q", code, stdout, stderr, want)
		}
	}
	if got := sealedKeyIDs(t, e2); !allEqual(got, idB) || len(got) < 2 {
		t.Errorf("after rotate the sealed values are under keys %v, want all under B (%s)", got, idB)
	}

	// B alone still opens everything; A alone no longer does, and says why.
	e3, stop3 := startRestartableAPI(t, token, env("BARRAGE_SECRET_KEY="+testSecretKeyB)...)
	_, before = last()
	if run := runTest(e3, test.Id.String()); run.Status != "completed" {
		t.Fatalf("test run under B alone ended %s (error %q)", run.Status, derefS(run.Error))
	}
	wantSeen("test run under B alone", before)
	stop3()
	e4, _ := startRestartableAPI(t, token, env("BARRAGE_SECRET_KEY="+testSecretKey)...)
	status, header, raw := e4.do(t, http.MethodPost, "/runs", e4.AdminToken, map[string]any{"test": test.Id.String()})
	p := wantProblem(t, status, header, raw, http.StatusConflict, "conflict")
	if detail := derefS(p.Detail); !strings.Contains(detail, "key id "+idB) {
		t.Errorf("running the test under A alone: %q, want the detail to name key id %s", detail, idB)
	}
}

// mustKeyID returns the key id of a base64 key.
func mustKeyID(t *testing.T, key string) string {
	t.Helper()
	s, err := sealer.Parse(key)
	if err != nil {
		t.Fatal(err)
	}
	return s.KeyID()
}

// sealedKeyIDs returns the key id of every sealed value in the database
// (tests, then outbox payloads), read from the format 1 header; "format0"
// for a value of the older format.
func sealedKeyIDs(t *testing.T, e *apiEnv) []string {
	t.Helper()
	rows, err := e.db.Query(`SELECT sealed_spec FROM tests WHERE sealed_spec IS NOT NULL
		UNION ALL SELECT decode(payload->>'sealed_spec', 'base64') FROM outbox WHERE payload->>'sealed_spec' IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var blob []byte
		if err := rows.Scan(&blob); err != nil {
			t.Fatal(err)
		}
		if len(blob) < 12 || !bytes.HasPrefix(blob, []byte("brs\x01")) {
			ids = append(ids, "format0")
			continue
		}
		ids = append(ids, fmt.Sprintf("%x", blob[4:12]))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// allEqual reports whether every element of list is want.
func allEqual(list []string, want string) bool {
	for _, s := range list {
		if s != want {
			return false
		}
	}
	return true
}
