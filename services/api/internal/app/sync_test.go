package app

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/barrage-dev/barrage/pkg/fortiotool"
	"github.com/barrage-dev/barrage/services/api/client"
)

// syncTimeout bounds one sync, from POST .../run to its end.
const syncTimeout = 60 * time.Second

// fortioFigures is the part of a Fortio result JSON an imported run's
// summary derives from, read independently of pkg/fortiojson.
type fortioFigures struct {
	ActualQPS         float64
	DurationHistogram struct {
		Count         int64
		Min, Max, Avg float64
		Percentiles   []struct{ Percentile, Value float64 }
	}
}

// percentileUS returns the document's own percentile p in µs.
func (f fortioFigures) percentileUS(t testing.TB, p float64) float64 {
	t.Helper()
	for _, q := range f.DurationHistogram.Percentiles {
		if q.Percentile == p {
			return q.Value * 1e6
		}
	}
	t.Fatalf("the document lists no percentile %v", p)
	return 0
}

// mustFortioFigures reads the figures of a Fortio result document.
func mustFortioFigures(t testing.TB, doc []byte) fortioFigures {
	t.Helper()
	f := decode[fortioFigures](t, doc)
	if f.DurationHistogram.Count == 0 || len(f.DurationHistogram.Percentiles) == 0 {
		t.Fatalf("document has no DurationHistogram figures: %.200s", doc)
	}
	return f
}

// closeTo reports whether got is want within 1e-6 relative.
func closeTo(got, want float64) bool {
	return math.Abs(got-want) <= 1e-6*math.Max(math.Abs(want), 1e-12)
}

// wantSummaryOf checks that run id's summary is doc's own figures: count,
// min, max, avg and p50/p90/p99 of DurationHistogram (s → µs) and
// ActualQPS.
func (e *apiEnv) wantSummaryOf(t testing.TB, id string, doc []byte) {
	t.Helper()
	f := mustFortioFigures(t, doc)
	run := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id, e.AdminToken, nil))
	if run.Source != "sync" || run.Status != "completed" || run.Summary == nil {
		t.Fatalf("run %s: source %q, status %q, summary %v; want a completed sync run with a summary", id, run.Source, run.Status, run.Summary)
	}
	s := run.Summary
	if s.Count != f.DurationHistogram.Count {
		t.Errorf("run %s: summary count = %d, want the document's %d", id, s.Count, f.DurationHistogram.Count)
	}
	h := f.DurationHistogram
	for _, c := range []struct {
		name string
		got  *float64
		want float64
	}{
		{"min_us", s.MinUs, h.Min * 1e6},
		{"max_us", s.MaxUs, h.Max * 1e6},
		{"avg_us", s.AvgUs, h.Avg * 1e6},
		{"p50_us", s.P50Us, f.percentileUS(t, 50)},
		{"p90_us", s.P90Us, f.percentileUS(t, 90)},
		{"p99_us", s.P99Us, f.percentileUS(t, 99)},
		{"qps", s.Qps, f.ActualQPS},
	} {
		switch {
		case c.got == nil:
			t.Errorf("run %s: summary has no %s, want %v", id, c.name, c.want)
		case !closeTo(*c.got, c.want):
			t.Errorf("run %s: summary %s = %v, want the document's %v", id, c.name, *c.got, c.want)
		}
	}
}

// allowLoopback puts 127.0.0.1 on project default's target allow-list.
func (e *apiEnv) allowLoopback(t testing.TB) {
	t.Helper()
	p := decode[client.Project](t, e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken,
		map[string]any{"target_allow_list": []string{"127.0.0.1"}}))
	if len(p.TargetAllowList) != 1 || p.TargetAllowList[0] != "127.0.0.1" {
		t.Fatalf("target_allow_list = %q, want [127.0.0.1]", p.TargetAllowList)
	}
}

// mustSyncSource adds an on-demand sync source to project default that
// looks at up to maxObjects objects.
func (e *apiEnv) mustSyncSource(t testing.TB, name, sourceURL string, maxObjects int) client.SyncSource {
	t.Helper()
	body := map[string]any{"project": "default", "name": name, "url": sourceURL, "interval_minutes": 0, "max_pages": 10, "max_objects": maxObjects}
	src := decode[client.SyncSource](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/sync-sources", e.AdminToken, body))
	if src.Kind != "auto" {
		t.Errorf("new source kind = %q, want auto", src.Kind)
	}
	return src
}

// mustSync runs a sync of src and waits for it to end.
func (e *apiEnv) mustSync(t testing.TB, src client.SyncSource) client.SyncRun {
	t.Helper()
	started := decode[client.SyncRun](t, e.mustDo(t, http.StatusAccepted, http.MethodPost,
		"/sync-sources/"+src.Id.String()+"/run", e.AdminToken, nil))
	var run client.SyncRun
	waitFor(t, syncTimeout, func() error {
		run = decode[client.SyncRun](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/sync-runs/"+started.Id.String(), e.AdminToken, nil))
		if run.Status == "running" {
			return errNotYet
		}
		return nil
	})
	if run.Objects == nil {
		t.Fatalf("sync %s has no objects list", run.Id)
	}
	return run
}

// syncFigures is what a sync counted, for comparing in one go.
type syncFigures struct {
	Status                               string
	Imported, Unchanged, Skipped, Failed int
}

func syncFiguresOf(r client.SyncRun) syncFigures {
	return syncFigures{string(r.Status), r.Imported, r.Unchanged, r.Skipped, r.Failed}
}

// objectOf returns the object of r whose URL ends in suffix.
func objectOf(t testing.TB, r client.SyncRun, suffix string) client.SyncObject {
	t.Helper()
	for _, o := range *r.Objects {
		if strings.HasSuffix(o.Url, suffix) {
			return o
		}
	}
	t.Fatalf("sync %s saw no object ending %q", r.Id, suffix)
	return client.SyncObject{}
}

// s3Docs are the Fortio results the bucket holds under team/a/.
var s3Docs = []string{"http_duration.json", "http_errors_max.json", "tcp.json", "grpc_ping.json", "http_credentials.json"}

// corruptKey is the object the fake S3 serves with one byte flipped.
const corruptKey = "team/a/tcp.json"

// startS3 runs gofakes3 on 127.0.0.1 with bucket "results": the Fortio
// results of s3Docs and notes.txt under team/a/ and other/x.json outside
// it. GET of corruptKey answers its body with one byte flipped. It
// returns the server's URL and the documents by key.
func startS3(t *testing.T) (string, map[string][]byte) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("results"); err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{}
	put := func(key string, body []byte) {
		if _, err := backend.PutObject("results", key, map[string]string{}, bytes.NewReader(body), int64(len(body)), nil); err != nil {
			t.Fatalf("put %s: %v", key, err)
		}
	}
	for _, name := range s3Docs {
		body, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "pkg", "fortiojson", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		docs["team/a/"+name] = body
		put("team/a/"+name, body)
	}
	put("team/a/notes.txt", []byte("not a result\n"))
	put("other/x.json", docs["team/a/http_duration.json"])

	s3 := gofakes3.New(backend).Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/results/"+corruptKey {
			s3.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		s3.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if len(body) > 0 {
			body[len(body)/2] ^= 0x01
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, docs
}

// TestSyncFromS3 syncs a bucket of a real S3 implementation (gofakes3)
// through ListObjects v1 and v2 with paging: .json results are imported
// with their document's figures, other objects skipped, a corrupted object
// fails its MD5 check, a second sync stores nothing again, and credentials
// in a document are not kept.
func TestSyncFromS3(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	base, docs := startS3(t)
	e.allowLoopback(t)

	runIDs := map[string]string{} // object key → run id, from source 1
	v1 := e.mustSyncSource(t, "bucket v1", base+"/results?prefix=team/a/&max-keys=2", 100)
	v2 := e.mustSyncSource(t, "bucket v2", base+"/results?list-type=2&prefix=team/a/&max-keys=2", 100)
	for _, c := range []struct {
		src  client.SyncSource
		kind string
	}{{v1, "s3v1"}, {v2, "s3v2"}} {
		run := e.mustSync(t, c.src)
		want := syncFigures{Status: "partial", Imported: 4, Skipped: 1, Failed: 1}
		if got := syncFiguresOf(run); got != want {
			t.Errorf("%s sync = %+v (error %q), want %+v", c.kind, got, derefS(run.Error), want)
		}
		if string(run.Kind) != c.kind || run.Pages < 3 {
			t.Errorf("%s sync: kind %q, %d pages; want %s and at least 3 pages of 2 keys", c.kind, run.Kind, run.Pages, c.kind)
		}
		if run.Error != nil {
			t.Errorf("%s sync error = %q, want none (the listing was read in full)", c.kind, *run.Error)
		}
		if len(*run.Objects) != 6 {
			t.Errorf("%s sync saw %d objects, want the 6 under team/a/", c.kind, len(*run.Objects))
		}
		for _, o := range *run.Objects {
			if !strings.HasPrefix(o.Url, base+"/results/team/a/") || strings.Contains(o.Url, "other/x.json") {
				t.Errorf("%s sync object URL %q, want one under %s/results/team/a/", c.kind, o.Url, base)
			}
		}
		if o := objectOf(t, run, "notes.txt"); o.Outcome != "skipped" {
			t.Errorf("%s sync: notes.txt %s, want skipped", c.kind, o.Outcome)
		}
		bad := objectOf(t, run, corruptKey)
		if bad.Outcome != "failed" || bad.Reason == nil || !strings.Contains(*bad.Reason, "MD5") || bad.RunId != nil {
			t.Errorf("%s sync: corrupted %s = %s (%q), run %v; want failed for its MD5, no run", c.kind, corruptKey, bad.Outcome, derefS(bad.Reason), bad.RunId)
		}
		for _, name := range s3Docs {
			key := "team/a/" + name
			if key == corruptKey {
				continue
			}
			o := objectOf(t, run, key)
			if o.Outcome != "imported" || o.RunId == nil {
				t.Errorf("%s sync: %s %s (%q), want imported with a run", c.kind, key, o.Outcome, derefS(o.Reason))
				continue
			}
			e.wantSummaryOf(t, o.RunId.String(), docs[key])
			if c.src.Id == v1.Id {
				runIDs[key] = o.RunId.String()
			}
		}
	}
	const countSynced = `SELECT count(*) FROM runs WHERE source = 'sync'`
	if n := e.count(t, countSynced); n != 8 {
		t.Fatalf("%d synced runs stored, want 4 per source", n)
	}

	// A listing longer than max_objects is read up to max_objects, even
	// when the limit falls inside a page, and says where it stopped.
	capped := e.mustSync(t, e.mustSyncSource(t, "bucket, three objects", base+"/results?max-keys=2&prefix=team/a/", 3))
	if len(*capped.Objects) != 3 || capped.Status != "partial" || capped.Error == nil || !strings.Contains(*capped.Error, "max_objects") {
		t.Errorf("sync of at most 3 objects: %d objects, %s (error %q); want 3, partial, stopped at max_objects",
			len(*capped.Objects), capped.Status, derefS(capped.Error))
	}
	if n := e.count(t, countSynced); n != 11 {
		t.Fatalf("%d synced runs stored, want 8 + the 3 of the capped source", n)
	}

	again := e.mustSync(t, v1)
	if got, want := syncFiguresOf(again), (syncFigures{Status: "partial", Unchanged: 4, Skipped: 1, Failed: 1}); got != want {
		t.Errorf("second v1 sync = %+v (error %q), want %+v", got, derefS(again.Error), want)
	}
	for key, id := range runIDs {
		if o := objectOf(t, again, key); o.Outcome != "unchanged" || o.RunId == nil || o.RunId.String() != id {
			t.Errorf("second v1 sync: %s %s, run %v; want unchanged, run %s", key, o.Outcome, o.RunId, id)
		}
	}
	if n := e.count(t, countSynced); n != 11 {
		t.Errorf("%d synced runs after the second sync, want still 11", n)
	}

	// Credentials in a document are not stored, nor served back.
	if n := e.count(t, `SELECT count(*) FROM run_results r JOIN runs ON runs.id = r.run_id
		WHERE runs.source = 'sync' AND r.fortio_json IS NOT NULL`); n != 11 {
		t.Errorf("%d synced runs keep a Fortio document, want all 11", n)
	}
	if n := e.count(t, `SELECT count(*) FROM run_results WHERE position('alice:pw'::bytea in fortio_json) > 0`); n != 0 {
		t.Errorf("%d stored Fortio documents hold the credentials alice:pw", n)
	}
	id := runIDs["team/a/http_credentials.json"]
	served := e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+id+"/result?format=fortio", e.AdminToken, nil)
	if bytes.Contains(served, []byte("alice:pw")) {
		t.Errorf("GET /runs/%s/result?format=fortio serves the credentials alice:pw", id)
	}
	e.wantSummaryOf(t, id, served)
}

// TestSyncRefusesLoopbackWithoutAllowList: a sync fails, without a request,
// for a loopback source the project does not allow, and for the cloud
// metadata address and the API's Postgres and NATS even when loopback is
// allowed.
func TestSyncRefusesLoopbackWithoutAllowList(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, "TsvHttpData-1.0\n")
	}))
	t.Cleanup(srv.Close)
	// The bootstrapped project allows loopback (for runs against a local
	// echo server); this one must not.
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"target_allow_list": []string{}})

	loop := e.mustSync(t, e.mustSyncSource(t, "loopback", srv.URL+"/fortio/data/index.tsv", 100))
	// A sync follows the project's policy as runs do: an empty list
	// refuses every address.
	if loop.Status != "failed" || loop.Error == nil || !strings.Contains(*loop.Error, "allow-list is empty") {
		t.Errorf("loopback sync = %s (error %q), want failed saying the allow-list is empty", loop.Status, derefS(loop.Error))
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server saw %d requests, want 0", n)
	}

	metadata := e.mustSyncSource(t, "metadata", "http://169.254.169.254/latest", 100)
	for _, allow := range []bool{false, true} {
		if allow {
			e.allowLoopback(t)
		}
		run := e.mustSync(t, metadata)
		if run.Status != "failed" || run.Error == nil || !strings.Contains(*run.Error, "metadata") {
			t.Errorf("metadata sync (loopback allowed: %v) = %s (error %q), want failed naming the metadata address", allow, run.Status, derefS(run.Error))
		}
	}

	// Loopback is allowed now, and the API's NATS and Postgres listen on it:
	// they are control-plane addresses, refused to syncs as to runs. (The
	// API's own address is not: TestInterchangeRoundTrip syncs from it.)
	db, err := url.Parse(e.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	for name, hostPort := range map[string]string{"nats": strings.TrimPrefix(e.NATSURL, "nats://"), "postgres": db.Host} {
		run := e.mustSync(t, e.mustSyncSource(t, name, "http://"+hostPort+"/index.tsv", 100))
		if run.Status != "failed" || run.Error == nil || !strings.Contains(*run.Error, "control-plane address") {
			t.Errorf("sync from the API's %s (%s) = %s (error %q), want failed naming the control-plane address", name, hostPort, run.Status, derefS(run.Error))
		}
	}
}

// startFortioServer runs `fortio server` with data dir dir on a free
// loopback port until t ends and returns its base URL (http://host:port).
func startFortioServer(t *testing.T, bin, dir string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "server", "-http-port", "127.0.0.1:0", "-grpc-port", "disabled",
		"-redirect-port", "disabled", "-tcp-port", "disabled", "-udp-port", "disabled", "-data-dir", dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutSuffix(strings.TrimSpace(sc.Text()), "/fortio/"); ok && strings.HasPrefix(u, "http://") {
				found <- u
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("fortio server did not print its URL within 30s")
		return ""
	}
}

// TestSyncFromFortioServer syncs the index.tsv of a real `fortio server`
// holding two results of real `fortio load` runs: each imported run's
// summary is its document's figures.
func TestSyncFromFortioServer(t *testing.T) { // serial: see heavyTests
	bin, err := fortiotool.Find()
	if err != nil {
		t.Fatalf("%v (make tools installs fortio in .tools/bin)", err)
	}
	dir := t.TempDir()
	base := startFortioServer(t, bin, dir)
	names := []string{"first", "second"}
	for _, name := range names {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		out, err := exec.CommandContext(ctx, bin, "load", "-qps", "200", "-n", "100", "-c", "2",
			"-json", filepath.Join(dir, name+".json"), base+"/echo").CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("fortio load %s: %v\n%s", name, err, out)
		}
	}
	docs := map[string][]byte{}
	for _, name := range names {
		body, err := os.ReadFile(filepath.Join(dir, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if f := mustFortioFigures(t, body); f.DurationHistogram.Count != 100 {
			t.Fatalf("%s.json counts %d calls, want fortio's 100", name, f.DurationHistogram.Count)
		}
		docs[name+".json"] = body
	}

	e := startAPI(t)
	e.allowLoopback(t)
	run := e.mustSync(t, e.mustSyncSource(t, "fortio", base+"/fortio/data/index.tsv", 100))
	if got, want := syncFiguresOf(run), (syncFigures{Status: "succeeded", Imported: 2}); got != want || run.Kind != "tsv" {
		t.Fatalf("fortio sync = %+v kind %q (error %q), want %+v kind tsv", got, run.Kind, derefS(run.Error), want)
	}
	for name, doc := range docs {
		o := objectOf(t, run, "/fortio/data/"+name)
		if o.RunId == nil {
			t.Fatalf("%s imported without a run", name)
		}
		e.wantSummaryOf(t, o.RunId.String(), doc)
	}
	if n := e.count(t, `SELECT count(*) FROM runs WHERE source = 'sync'`); n != 2 {
		t.Errorf("%d synced runs stored, want 2", n)
	}

	// An index.tsv longer than max_objects syncs its first max_objects
	// entries and says where it stopped.
	capped := e.mustSync(t, e.mustSyncSource(t, "fortio, one object", base+"/fortio/data/index.tsv?capped", 1))
	if got, want := syncFiguresOf(capped), (syncFigures{Status: "partial", Imported: 1}); got != want ||
		capped.Error == nil || !strings.Contains(*capped.Error, "max_objects") {
		t.Errorf("sync of at most 1 object = %+v (error %q), want %+v stopped at max_objects", got, derefS(capped.Error), want)
	}
}
