package app

import (
	"bytes"
	"crypto/md5" //nolint:gosec // index.tsv's checksum
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/pkg/fortiotool"
	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// fortioDoc reads a real `fortio load -json` document from pkg/fortiojson.
func fortioDoc(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "pkg", "fortiojson", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// docFigures are the figures a Fortio document states, in microseconds.
type docFigures struct {
	count                        int64
	min, max, avg, p50, p90, p99 float64
	qps                          float64
}

func docSummary(t *testing.T, doc []byte) docFigures {
	t.Helper()
	var d struct {
		ActualQPS         float64
		DurationHistogram struct {
			Count         int64
			Min, Max, Avg float64
			Percentiles   []struct{ Percentile, Value float64 }
		}
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	h := d.DurationHistogram
	f := docFigures{count: h.Count, min: h.Min * 1e6, max: h.Max * 1e6, avg: h.Avg * 1e6, qps: d.ActualQPS}
	for _, p := range h.Percentiles {
		switch p.Percentile {
		case 50:
			f.p50 = p.Value * 1e6
		case 90:
			f.p90 = p.Value * 1e6
		case 99:
			f.p99 = p.Value * 1e6
		}
	}
	return f
}

// val returns *p, or the zero value for nil.
func val[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// near reports whether a and b agree to a relative 1e-9.
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// checkSummary compares a run's summary with the figures of a document.
func checkSummary(t *testing.T, what string, sm *client.RunSummary, want docFigures) {
	t.Helper()
	if sm == nil {
		t.Fatalf("%s: no summary", what)
	}
	got := []float64{deref(sm.MinUs), deref(sm.MaxUs), deref(sm.AvgUs), deref(sm.P50Us), deref(sm.P90Us), deref(sm.P99Us), deref(sm.Qps)}
	exp := []float64{want.min, want.max, want.avg, want.p50, want.p90, want.p99, want.qps}
	names := []string{"min", "max", "avg", "p50", "p90", "p99", "qps"}
	if sm.Count != want.count {
		t.Errorf("%s: count %d, want %d", what, sm.Count, want.count)
	}
	for i := range got {
		if names[i] == "qps" && math.Abs(got[i]-exp[i]) <= 1e-3*exp[i] {
			continue // the export's rate is over the shards' span, the summary's over the run's
		}
		if !near(got[i], exp[i]) {
			t.Errorf("%s: %s = %v, want %v", what, names[i], got[i], exp[i])
		}
	}
}

// TestImportFortioDocument imports real Fortio results, reads them back in
// every form, and refuses bad documents without storing anything.
func TestImportFortioDocument(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	doc := fortioDoc(t, "http_credentials.json")
	status, header, raw := e.do(t, http.MethodPost, "/imports?project=default&origin=team/run-1.json", e.AdminToken, doc)
	if status != http.StatusCreated {
		t.Fatalf("import: %d %s", status, raw)
	}
	run := decode[client.Run](t, raw)
	if header.Get("Location") != "/api/v1/runs/"+run.Id.String() || run.Source != "import" || run.Status != "completed" {
		t.Errorf("imported run: location %q source %s status %s", header.Get("Location"), run.Source, run.Status)
	}
	checkSummary(t, "imported run", run.Summary, docSummary(t, doc))
	if strings.Contains(run.Target, "alice") && strings.Contains(run.Target, "pw") {
		t.Errorf("target keeps the credentials: %s", run.Target)
	}

	res := decode[client.RunResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+run.Id.String()+"/result", e.AdminToken, nil))
	if !res.Imported || res.Response != nil || res.Lag != nil || res.Primary != client.Service || val(res.Origin) != "team/run-1.json" {
		t.Errorf("result: imported %v response %v lag %v primary %s origin %v", res.Imported, res.Response, res.Lag, res.Primary, res.Origin)
	}
	var inBuckets int64
	for _, b := range val(res.Buckets) {
		inBuckets += b.Count
	}
	if inBuckets != res.Count || res.Count == 0 || len(val(res.Buckets)) == 0 {
		t.Errorf("buckets hold %d of %d calls", inBuckets, res.Count)
	}

	// The export is the stored, redacted document: no secret anywhere.
	exported := e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+run.Id.String()+"/result?format=fortio", e.AdminToken, nil)
	var stored []byte
	if err := e.db.QueryRow("SELECT fortio_json FROM run_results WHERE run_id = $1", run.Id).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(exported, stored) {
		t.Error("format=fortio differs from the stored document")
	}
	for _, secret := range []string{"alice:pw", "s3cr3t"} {
		if bytes.Contains(exported, []byte(secret)) {
			t.Errorf("the export holds %q", secret)
		}
	}
	csv := string(e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+run.Id.String()+"/result?format=fortio-csv", e.AdminToken, nil))
	if lines := strings.Split(strings.TrimSpace(csv), "\n"); lines[0] != "StartMs,EndMs,Percent,Count" || len(lines) != len(val(res.Buckets))+1 ||
		!strings.HasSuffix(lines[len(lines)-1], ",100,"+strconv.FormatInt(val(res.Buckets)[len(val(res.Buckets))-1].Count, 10)) {
		t.Errorf("fortio-csv:\n%s", csv)
	}
	// format=csv of an imported run: its one (service) histogram at the default percentiles.
	csv = string(e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+run.Id.String()+"/result?format=csv", e.AdminToken, nil))
	if lines := strings.Split(strings.TrimSpace(csv), "\n"); len(lines) != 6 || !strings.HasPrefix(lines[1], "service,50,") ||
		!strings.HasPrefix(lines[5], "service,99.9,") || !strings.Contains(lines[1], ","+strconv.FormatInt(res.Count, 10)+",") {
		t.Errorf("csv of an imported run:\n%s", csv)
	}

	t.Run("bad documents", func(t *testing.T) {
		before := e.count(t, "SELECT count(*) FROM runs")
		viewer := e.mustToken(t, "default", auth.Viewer)
		for _, c := range []struct {
			name, body, token string
			status            int
			field             string
		}{
			{"no histogram", `{"RunType":"HTTP"}`, e.AdminToken, http.StatusUnprocessableEntity, "DurationHistogram"},
			{"negative count", `{"DurationHistogram":{"Count":-1}}`, e.AdminToken, http.StatusUnprocessableEntity, "DurationHistogram.Count"},
			{"buckets not summing", `{"DurationHistogram":{"Count":5,"Min":0.001,"Max":0.002,"Data":[{"Start":0.001,"End":0.002,"Percent":100,"Count":4}]}}`, e.AdminToken, http.StatusUnprocessableEntity, "DurationHistogram.Data"},
			{"not JSON", `{"DurationHistogram":`, e.AdminToken, http.StatusBadRequest, ""},
			{"viewer", string(doc), viewer, http.StatusForbidden, ""},
		} {
			status, _, raw := e.do(t, http.MethodPost, "/imports?project=default", c.token, c.body)
			if status != c.status {
				t.Errorf("%s: status %d, want %d: %s", c.name, status, c.status, raw)
				continue
			}
			if c.field != "" {
				p := decode[client.Problem](t, raw)
				if fields := problemFields(p); len(fields) == 0 || !strings.HasPrefix(fields[0], c.field) {
					t.Errorf("%s: fields %v, want %s", c.name, fields, c.field)
				}
			}
		}
		huge := `{"DurationHistogram":{"Count":0},"Payload":"` + strings.Repeat("x", 2<<20) + `"}`
		if status, _, _ := e.do(t, http.MethodPost, "/imports", e.AdminToken, huge); status != http.StatusRequestEntityTooLarge {
			t.Errorf("2 MiB document: status %d, want 413", status)
		}
		if after := e.count(t, "SELECT count(*) FROM runs"); after != before {
			t.Errorf("bad documents stored %d runs", after-before)
		}
	})

	t.Run("beside native runs", func(t *testing.T) {
		second := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/imports?project=default", e.AdminToken, fortioDoc(t, "tcp.json")))
		cmp := decode[client.RunComparison](t, e.mustDo(t, http.StatusOK, http.MethodGet,
			"/runs/compare?ids="+run.Id.String()+","+second.Id.String(), e.AdminToken, nil))
		if len(cmp.Items) != 2 || cmp.Items[0].Source != "import" || val(cmp.Items[1].Count) != docSummary(t, fortioDoc(t, "tcp.json")).count ||
			!near(deref(cmp.Items[0].P50Us), docSummary(t, doc).p50) {
			t.Errorf("comparison %+v", cmp.Items)
		}
		list := decode[client.RunPage](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs?project=default", e.AdminToken, nil))
		if len(list.Items) != 2 || list.Items[0].Id != second.Id || !strings.HasPrefix(second.Target, "tcp://") {
			t.Errorf("run list %v, second target %s", ids(list.Items, func(r client.Run) uuid.UUID { return r.Id }), second.Target)
		}
	})
}

// indexLines fetches an index.tsv and returns its entries.
func (e *apiEnv) indexLines(t *testing.T, path, token string, headers ...string) []fortiojson.IndexEntry {
	t.Helper()
	status, header, raw := e.do(t, http.MethodGet, path, token, nil, headers...)
	if status != http.StatusOK || header.Get("Access-Control-Allow-Origin") != "*" || !strings.HasPrefix(header.Get("Content-Type"), "text/plain") {
		t.Fatalf("%s: %d %v %s", path, status, header, raw)
	}
	entries, err := fortiojson.ParseIndex(raw, 1000)
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, raw)
	}
	return entries
}

// TestFortioDataExport serves completed runs as index.tsv and result JSON:
// only public projects' to anonymous callers, with sizes and MD5s that
// match the served bytes, and conditional GETs.
func TestFortioDataExport(t *testing.T) {
	t.Parallel()
	// The test's client is the proxy whose X-Forwarded-* are believed.
	e := startAPI(t, "BARRAGE_TRUSTED_PROXIES=127.0.0.1/32")
	run := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/imports?project=default", e.AdminToken, fortioDoc(t, "http_duration.json")))
	if got := e.indexLines(t, "/fortio/data/index.tsv", ""); len(got) != 0 {
		t.Errorf("a private project's runs are listed to anonymous callers: %v", got)
	}
	if got := e.indexLines(t, "/fortio/data/index.tsv", e.AdminToken); len(got) != 1 {
		t.Fatalf("the admin sees %d entries, want 1", len(got))
	}
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"public_results": true})
	entries := e.indexLines(t, "/fortio/data/index.tsv?project=default", "", "X-Forwarded-Proto", "https", "X-Forwarded-Host", "results.example")
	if len(entries) != 1 {
		t.Fatalf("public index has %d entries", len(entries))
	}
	u := entries[0].URL
	prefix := "https://results.example/fortio/data/"
	if !strings.HasPrefix(u, prefix) || !strings.HasSuffix(u, ".json") {
		t.Fatalf("index URL %q", u)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(u, prefix), ".json")
	status, header, body := e.do(t, http.MethodGet, "/fortio/data/"+id+".json", "", nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", id, status, body)
	}
	sum := md5.Sum(body) //nolint:gosec // index.tsv's checksum
	if int64(len(body)) != entries[0].Size || !bytes.Equal(sum[:], entries[0].MD5) {
		t.Errorf("index says %d bytes md5 %x, served %d bytes md5 %x", entries[0].Size, entries[0].MD5, len(body), sum)
	}
	if !strings.Contains(id, "_"+strconv.Itoa(int(seqOf(t, e, run.Id.String())))) {
		t.Errorf("ID %q lacks the run number", id)
	}
	if st, _, _ := e.do(t, http.MethodGet, "/fortio/data/"+id+".json", "", nil, "If-None-Match", header.Get("ETag")); st != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", st)
	}
	for _, bad := range []string{"2026-01-01-000000_999999.json", "nope.txt", id + "x.json"} {
		if st, _, _ := e.do(t, http.MethodGet, "/fortio/data/"+bad, "", nil); st != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", bad, st)
		}
	}
	if st, _, _ := e.do(t, http.MethodGet, "/fortio/data/index.tsv", "brg_not-a-real-token", nil); st != http.StatusUnauthorized {
		t.Errorf("bad token: status %d, want 401", st)
	}

	// The real fortio reads it: `fortio report -sync` saves our JSON files.
	bin, err := fortiotool.Find()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	port := freePort(t)
	cmd := exec.Command(bin, "report", "-http-port", "127.0.0.1:"+port, "-data-dir", dir, "-sync", e.URL+"/fortio/data/index.tsv")
	cmd.Stdout, cmd.Stderr = testLogWriter(t), testLogWriter(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	saved := filepath.Join(dir, id+".json")
	waitFor(t, 20*time.Second, func() error {
		b, err := os.ReadFile(saved)
		if err != nil || !bytes.Equal(b, body) {
			return fmt.Errorf("fortio has not saved %s yet: %w", saved, err)
		}
		return nil
	})
}

// seqOf reads a run's number from Postgres.
func seqOf(t *testing.T, e *apiEnv, id string) int64 {
	t.Helper()
	var seq int64
	if err := e.db.QueryRow("SELECT seq FROM runs WHERE id = $1", id).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	return seq
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	_ = l.Close()
	return port
}

// TestInterchangeRoundTrip runs real load, exports it as Fortio JSON,
// syncs that export into a second project over index.tsv, and finds the
// same figures there.
func TestInterchangeRoundTrip(t *testing.T) { // serial: see heavyTests
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 1)
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default", "name": "round trip", "labels": map[string]string{"title": "round trip"},
		"spec": map[string]any{"url": echo + "/?delay=1ms", "qps": 200, "connections": 4, "duration": "2s"},
	}))
	native := e.waitRun(t, created.Id.String(), 30*time.Second)
	if native.Status != "completed" || native.Summary == nil {
		t.Fatalf("run ended %s", native.Status)
	}
	doc := e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+native.Id.String()+"/result?format=fortio", e.AdminToken, nil)
	want := docSummary(t, doc)
	checkSummary(t, "native run vs its export", native.Summary, want)

	e.mustDo(t, http.StatusCreated, http.MethodPost, "/projects", e.AdminToken, map[string]any{"slug": "mirror", "name": "Mirror"})
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/mirror", e.AdminToken, map[string]any{"target_allow_list": []string{"127.0.0.1"}})
	src := decode[client.SyncSource](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/sync-sources", e.AdminToken, map[string]any{
		"project": "mirror", "name": "self", "url": e.URL + "/fortio/data/index.tsv?project=default",
	}))
	// The default project is private: to the sync, anonymous, it does not exist.
	if got := e.syncNow(t, src.Id.String()); got.Status != client.SyncFailed || got.Imported != 0 || !strings.Contains(val(got.Error), "404") {
		t.Errorf("private project: status %s error %q", got.Status, val(got.Error))
	}
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"public_results": true})
	got := e.syncNow(t, src.Id.String())
	if got.Status != client.SyncSucceeded || got.Imported != 1 || len(val(got.Objects)) != 1 {
		t.Fatalf("sync %+v", got)
	}
	obj := val(got.Objects)[0]
	mirrored := decode[client.Run](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+obj.RunId.String(), e.AdminToken, nil))
	checkSummary(t, "mirrored run", mirrored.Summary, want)
	if mirrored.Source != "sync" || native.Summary.Count != mirrored.Summary.Count || !near(deref(native.Summary.P99Us), deref(mirrored.Summary.P99Us)) {
		t.Errorf("mirrored %+v vs native %+v", mirrored.Summary, native.Summary)
	}
	// Again: the same URL and MD5 is unchanged, nothing new is stored.
	if again := e.syncNow(t, src.Id.String()); again.Unchanged != 1 || again.Imported != 0 {
		t.Errorf("second sync %+v", again)
	}
	if n := e.count(t, "SELECT count(*) FROM runs WHERE source = 'sync'"); n != 1 {
		t.Errorf("%d synced runs, want 1", n)
	}
}

// syncNow syncs a source and waits for the sync to end.
func (e *apiEnv) syncNow(t *testing.T, source string) client.SyncRun {
	t.Helper()
	started := decode[client.SyncRun](t, e.mustDo(t, http.StatusAccepted, http.MethodPost, "/sync-sources/"+source+"/run", e.AdminToken, nil))
	var out client.SyncRun
	waitFor(t, 30*time.Second, func() error {
		out = decode[client.SyncRun](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/sync-runs/"+started.Id.String(), e.AdminToken, nil))
		if out.Status == client.SyncRunning {
			return fmt.Errorf("sync %s still running", started.Id)
		}
		return nil
	})
	return out
}

// TestScheduledSync: a source with an interval is synced by the server's
// own loop once due, with trigger schedule, and its next run moves on.
func TestScheduledSync(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_SYNC_TICK=100ms")
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(fortiojson.IndexHeader + "\n"))
	}))
	t.Cleanup(peer.Close)
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"target_allow_list": []string{"127.0.0.1"}})
	src := decode[client.SyncSource](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/sync-sources", e.AdminToken, map[string]any{
		"project": "default", "name": "hourly", "url": peer.URL + "/index.tsv", "interval_minutes": 60,
	}))
	if src.NextRunAt == nil || src.NextRunAt.Before(time.Now().Add(59*time.Minute)) {
		t.Fatalf("next run %v, want an hour from now", src.NextRunAt)
	}
	e.exec(t, "UPDATE sync_sources SET next_run_at = now() - interval '1 second' WHERE id = $1", src.Id)
	var runs client.SyncRunList
	waitFor(t, 10*time.Second, func() error {
		runs = decode[client.SyncRunList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/sync-sources/"+src.Id.String()+"/runs", e.AdminToken, nil))
		if len(runs.Items) == 0 || runs.Items[0].Status == client.SyncRunning {
			return fmt.Errorf("no finished scheduled sync yet")
		}
		return nil
	})
	if len(runs.Items) != 1 || runs.Items[0].Trigger != client.SyncRunTriggerSchedule || runs.Items[0].Status != client.SyncSucceeded || runs.Items[0].Kind != client.Tsv {
		t.Errorf("scheduled syncs %+v", runs.Items)
	}
	after := decode[client.SyncSource](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/sync-sources/"+src.Id.String(), e.AdminToken, nil))
	if after.NextRunAt == nil || after.NextRunAt.Before(time.Now().Add(59*time.Minute)) || after.Kind != client.Tsv {
		t.Errorf("after the sync: next run %v kind %s", after.NextRunAt, after.Kind)
	}
}
