package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/api/client"
)

// writeReadTarget is a loopback target that creates whatever is posted to
// it (201) and counts, on its side, the requests it answered by method and
// path.
type writeReadTarget struct {
	mu   sync.Mutex
	hits map[string]map[string]int // method → path → requests
}

func startWriteReadTarget(t *testing.T) (*writeReadTarget, string) {
	t.Helper()
	wr := &writeReadTarget{hits: map[string]map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wr.mu.Lock()
		if wr.hits[r.Method] == nil {
			wr.hits[r.Method] = map[string]int{}
		}
		wr.hits[r.Method][r.URL.RequestURI()]++
		wr.mu.Unlock()
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
	}))
	t.Cleanup(srv.Close)
	return wr, srv.URL
}

// paths returns a copy of the paths requested with method and how often.
func (wr *writeReadTarget) paths(method string) map[string]int {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	out := map[string]int{}
	for p, n := range wr.hits[method] {
		out[p] = n
	}
	return out
}

// TestDistributedWrittenURLsReadBack posts /post/{seq} on two agents with
// record_written_urls: GET written-urls lists exactly the URLs the target
// created, once each, as many as the rows in Postgres and the result's
// count; a snapshot delivered again adds nothing; and a GET run with
// urls_from_run reads every one of them back, on two agents too.
func TestDistributedWrittenURLsReadBack(t *testing.T) { // serial: see heavyTests
	const n = 400
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	target, base := startWriteReadTarget(t)
	startAgents(t, e.NATSURL, 2)
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec": map[string]any{"url": base + "/post/{seq}", "method": "POST", "payload": `{"id":{seq}}`,
			"count": n, "connections": 4, "record_written_urls": true},
	}))
	id := created.Id.String()
	if run := e.waitRun(t, id, 60*time.Second); run.Status != "completed" {
		t.Fatalf("write run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	finals := e.shardFinals(t, id)
	if len(finals) != 2 {
		t.Fatalf("%d shard finals, want 2", len(finals))
	}
	posted := target.paths(http.MethodPost)
	if len(posted) != n {
		t.Fatalf("target created %d distinct paths, want %d", len(posted), n)
	}
	lines := e.writtenURLs(t, id)
	if len(lines) != n {
		t.Fatalf("written-urls has %d lines, want %d", len(lines), n)
	}
	for _, l := range lines {
		path, ok := strings.CutPrefix(l, base)
		if !ok || posted[path] != 1 {
			t.Fatalf("written URL %q: not one the target created once (%d)", l, posted[path])
		}
		delete(posted, path) // a line listed twice would fail here the second time
	}
	if rows := e.count(t, `SELECT count(*) FROM run_written_urls WHERE run_id = $1::uuid`, id); rows != n {
		t.Errorf("%d rows in run_written_urls, want %d", rows, n)
	}
	checkWrittenCounts(t, e, id, n, 0)

	redeliverWithURLs(t, e, finals[0], base+"/again/", n)
	if rows := e.count(t, `SELECT count(*) FROM run_written_urls WHERE run_id = $1::uuid`, id); rows != n {
		t.Errorf("after a redelivered snapshot, %d rows, want %d", rows, n)
	}
	if again := e.writtenURLs(t, id); !slices.Equal(again, lines) {
		t.Errorf("after a redelivered snapshot the list changed: %d lines", len(again))
	}
	checkWrittenCounts(t, e, id, n, 0)

	// The follow-up read: 2n requests on two shards, each going round the
	// list once, so the target sees every written path twice.
	status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, map[string]any{"project": "default",
		"spec": map[string]any{"url": "http://10.1.2.3:8080/", "urls_from_run": id, "count": 2 * n}})
	if p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation"); !slices.Contains(problemFields(p), "spec.url") {
		t.Errorf("a follow-up to a target outside the allow-list: fields %v, want spec.url", problemFields(p))
	}
	read := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{"project": "default",
		"spec": map[string]any{"url": base + "/", "urls_from_run": id, "count": 2 * n, "connections": 4}}))
	if len(read.Spec.URLs) != n || read.Spec.URLsFromRun != id || !slices.Equal(read.Spec.URLs, lines) {
		t.Fatalf("follow-up spec has %d urls from %q; want the %d written URLs of %s in order", len(read.Spec.URLs), read.Spec.URLsFromRun, n, id)
	}
	if run := e.waitRun(t, read.Id.String(), 60*time.Second); run.Status != "completed" {
		t.Fatalf("read run ended %s (error %q)", run.Status, derefS(run.Error))
	}
	got := target.paths(http.MethodGet)
	if len(got) != n {
		t.Errorf("read run hit %d distinct paths, want the %d written", len(got), n)
	}
	for _, l := range lines {
		if p := strings.TrimPrefix(l, base); got[p] != 2 {
			t.Errorf("%s read %d times, want 2", p, got[p])
		}
	}
}

// writtenURLs reads GET /runs/{run}/written-urls as lines.
func (e *apiEnv) writtenURLs(t *testing.T, id string) []string {
	t.Helper()
	status, header, raw := e.do(t, http.MethodGet, "/runs/"+id+"/written-urls", e.AdminToken, nil)
	if status != http.StatusOK || header.Get("Content-Type") != "text/plain; charset=utf-8" ||
		header.Get("Content-Disposition") != "attachment; filename=barrage-"+id+"-written-urls.txt" {
		t.Fatalf("written-urls: %d %q %q: %s", status, header.Get("Content-Type"), header.Get("Content-Disposition"), raw)
	}
	if len(raw) == 0 {
		return nil
	}
	if raw[len(raw)-1] != '\n' {
		t.Fatalf("written-urls does not end with a newline: %q", raw[max(0, len(raw)-40):])
	}
	return strings.Split(string(raw[:len(raw)-1]), "\n")
}

// checkWrittenCounts checks the result's written_urls.
func checkWrittenCounts(t *testing.T, e *apiEnv, id string, stored, dropped int64) {
	t.Helper()
	res := decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/result", e.AdminToken, nil))
	if c := res.WrittenUrls; c == nil || c.Stored != stored || c.Dropped != dropped {
		t.Errorf("result written_urls %+v, want %d stored and %d dropped", c, stored, dropped)
	}
}

// redeliverWithURLs publishes again, under a new message id so that
// JetStream does not drop it, the first interval snapshot of final's
// shard, carrying n URLs made of prefix and a number (more than the shard
// stored, so that places with no row yet are among them), and waits until
// the ingester has handled it.
func redeliverWithURLs(t *testing.T, e *apiEnv, final *barragev1.Snapshot, prefix string, n int) {
	t.Helper()
	nc, err := nats.Connect(e.NATSURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	again := &barragev1.Snapshot{
		RunId: final.GetRunId(), Shard: final.GetShard(), AgentId: final.GetAgentId(), Seq: 1,
		IntervalStart: final.GetIntervalStart(), IntervalEnd: timestamppb.New(final.GetIntervalStart().AsTime().Add(time.Second)),
	}
	for i := range n {
		again.WrittenUrls = append(again.WrittenUrls, prefix+strconv.Itoa(i))
	}
	data, err := proto.Marshal(again)
	if err != nil {
		t.Fatal(err)
	}
	msgID := wire.SnapMsgID(final.GetRunId(), final.GetShard(), 1) + "/again"
	if _, err := js.Publish(ctx, wire.SnapSubject(final.GetAgentId(), final.GetRunId(), final.GetShard()), data, jetstream.WithMsgID(msgID)); err != nil {
		t.Fatal(err)
	}
	cons, err := js.Consumer(ctx, wire.SnapStream, wire.IngestConsumer)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, func() error {
		info, err := cons.Info(ctx)
		if err != nil {
			return err
		}
		if info.NumPending != 0 || info.NumAckPending != 0 {
			return fmt.Errorf("consumer has %d pending and %d unacked", info.NumPending, info.NumAckPending)
		}
		return nil
	})
}

// TestWrittenURLsRefused: record_written_urls on gRPC, and urls_from_run
// naming a run of another project, one that does not record, one that has
// not ended or that has no written URL, are 422 naming the field; the
// list of a run that does not record is 404.
func TestWrittenURLsRefused(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	e.mustProject(t, "elsewhere")
	recording := func(project string) string {
		sp := testSpec()
		sp["method"], sp["record_written_urls"] = "POST", true
		return decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken,
			map[string]any{"project": project, "spec": sp})).Id.String()
	}
	plain := e.mustRun(t, e.AdminToken, "default", "plain", nil).Id.String()
	queued := recording("default")
	ended := recording("default")
	e.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+ended+"/stop", e.AdminToken, nil)
	other := recording("elsewhere")
	e.mustDo(t, http.StatusOK, http.MethodPost, "/runs/"+other+"/stop", e.AdminToken, nil)

	fromRun := func(id string) map[string]any {
		return map[string]any{"url": "http://127.0.0.1:9/", "urls_from_run": id, "duration": "1s"}
	}
	tests := []struct {
		name  string
		spec  map[string]any
		field string
		says  string
	}{
		{"grpc", map[string]any{"url": "grpc://127.0.0.1:9", "record_written_urls": true, "duration": "1s"},
			"spec.record_written_urls", "only applies to http and https URLs"},
		{"h2c", map[string]any{"url": "h2c://127.0.0.1:9/", "record_written_urls": true, "duration": "1s"},
			"spec.record_written_urls", "HTTP/1.1 targets only"},
		{"other project", fromRun(other), "spec.urls_from_run", "is not a run of this project"},
		{"unknown run", fromRun("0190b1c2-0000-7000-8000-000000000002"), "spec.urls_from_run", "is not a run of this project"},
		{"not recorded", fromRun(plain), "spec.urls_from_run", "did not record its written URLs"},
		{"not ended", fromRun(queued), "spec.urls_from_run", "is queued"},
		{"none written", fromRun(ended), "spec.urls_from_run", "has no written URLs"},
	}
	for _, tt := range tests {
		status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, map[string]any{"project": "default", "spec": tt.spec})
		p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
		if msg, ok := fieldMessage(p, tt.field); !ok || !strings.Contains(msg, tt.says) {
			t.Errorf("%s: fields %v, %s says %q; want %q", tt.name, problemFields(p), tt.field, msg, tt.says)
		}
	}
	// Not a UUID is refused by the OpenAPI schema or the spec, on the field.
	status, header, raw := e.do(t, http.MethodPost, "/runs", e.AdminToken, map[string]any{"project": "default", "spec": fromRun("last")})
	if p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation"); !strings.Contains(string(raw), "urls_from_run") {
		t.Errorf("urls_from_run %q: fields %v, want urls_from_run named", "last", problemFields(p))
	}
	status, header, raw = e.do(t, http.MethodGet, "/runs/"+plain+"/written-urls", e.AdminToken, nil)
	wantProblem(t, status, header, raw, http.StatusNotFound, "not-found")
	if got := e.writtenURLs(t, ended); len(got) != 0 {
		t.Errorf("an ended run that wrote nothing lists %d URLs", len(got))
	}
	if n := e.count(t, `SELECT count(*) FROM runs`); n != 4 {
		t.Errorf("%d runs stored, want the 4 fixtures only", n)
	}
}
