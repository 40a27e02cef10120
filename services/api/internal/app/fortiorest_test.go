package app

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/fortiotool"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/fortiorest"
)

// fortioResult is the part of Fortio's result JSON the REST tests read.
type fortioResult struct {
	RunType           string
	Labels            string
	RequestedQPS      string
	RequestedDuration string
	NumThreads        int
	RunID             int64
	ID                string
	URL               string
	RetCodes          map[string]int64
	DurationHistogram struct {
		Count       int64
		Percentiles []struct{ Percentile, Value float64 }
	}
}

// TestFortioRESTRunAsAWebhook drives /fortio/rest as Flagger or curl does,
// with Fortio's parameters and the token in the query string, against the
// echo server through embedded NATS and a real agent: a sync run answers
// Fortio's result JSON, which `fortio report -sync` then lists; an async
// run answers Fortio's started reply, shows in status, and stops.
func TestFortioRESTRunAsAWebhook(t *testing.T) { // serial: see heavyTests
	var logs syncBuffer
	e := startAPILogged(t, &logs, "BARRAGE_DISPATCH_WAIT=10s", "BARRAGE_FORTIO_URL_TOKEN=true")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 1)
	runner := e.mustToken(t, "default", auth.Runner)

	q := url.Values{"url": {echo + "/"}, "qps": {"50"}, "n": {"100"}, "c": {"2"}, "labels": {"rest sync"},
		"p": {"50,99"}, "H": {"X-Check: 1"}, "token": {runner}}
	status, header, raw := e.do(t, http.MethodGet, "/fortio/rest/run?"+q.Encode(), "", nil)
	if status != http.StatusOK || header.Get("Content-Type") != "application/json" {
		t.Fatalf("sync run: %d %s: %s", status, header.Get("Content-Type"), raw)
	}
	res := decode[fortioResult](t, raw)
	if res.RequestedQPS != "50" || res.DurationHistogram.Count != 100 || res.RetCodes["200"] != 100 || len(res.RetCodes) != 1 {
		t.Errorf("sync result: RequestedQPS %q, count %d, RetCodes %v; want 50, 100, 200:100", res.RequestedQPS, res.DurationHistogram.Count, res.RetCodes)
	}
	if res.RunType != "HTTP" || res.NumThreads != 2 || res.Labels != "rest sync" || res.RequestedDuration != "exactly 100 calls" || len(res.DurationHistogram.Percentiles) != 2 {
		t.Errorf("sync result: %+v", res)
	}
	if res.RunID <= 0 || !strings.Contains(res.ID, "_"+strconv.FormatInt(res.RunID, 10)+"_rest_sync") {
		t.Errorf("RunID %d, ID %q: want the run number and labels in the ID", res.RunID, res.ID)
	}
	if strings.Contains(logs.String(), runner) {
		t.Error("the server logged the token of ?token=")
	}

	// `fortio report -sync` reads the run back from index.tsv.
	e.mustDo(t, http.StatusOK, http.MethodPatch, "/projects/default", e.AdminToken, map[string]any{"public_results": true})
	fortioReportSync(t, e, res.ID)

	fortioRESTAsync(t, e, echo, runner)
}

// fortioReportSync runs the real `fortio report -sync` on the server's
// index.tsv until it has saved result id.
func fortioReportSync(t *testing.T, e *apiEnv, id string) {
	t.Helper()
	bin, err := fortiotool.Find()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "report", "-http-port", "127.0.0.1:"+freePort(t), "-data-dir", dir, "-sync", e.URL+"/fortio/data/index.tsv")
	cmd.Stdout, cmd.Stderr = testLogWriter(t), testLogWriter(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitFor(t, 20*time.Second, func() error {
		b, err := os.ReadFile(filepath.Join(dir, id+".json"))
		if err != nil {
			return err
		}
		if got := decode[fortioResult](t, b); got.ID != id || got.RetCodes["200"] != 100 {
			t.Fatalf("fortio saved %s with ID %q and codes %v", id, got.ID, got.RetCodes)
		}
		return nil
	})
}

// fortioRESTAsync starts an open-ended run with a JSON body at jsonPath
// and async=on, finds it in status, stops it and reads its result at the
// URL the start reply gave.
func fortioRESTAsync(t *testing.T, e *apiEnv, echo, token string) {
	t.Helper()
	body := map[string]any{"metadata": map[string]any{"url": echo + "/", "qps": "20", "t": "on", "async": "on", "headers": []string{"X-From: flagger"}}}
	started := decode[fortiorest.Reply](t, e.mustDo(t, http.StatusOK, http.MethodPost, "/fortio/rest/run?jsonPath=.metadata", token, body))
	if started.Message != "started" || started.RunID <= 0 || started.Count != 1 ||
		!strings.HasSuffix(started.ResultURL, "/fortio/data/"+started.ResultID+".json") {
		t.Fatalf("async reply %+v", started)
	}
	key := strconv.FormatInt(started.RunID, 10)
	waitFor(t, 20*time.Second, func() error {
		st := decode[fortiorest.StatusReply](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/rest/status", token, nil))
		if s, ok := st.Statuses[key]; !ok || s.State != fortiorest.StateRunning || s.RunnerOptions.QPS != 20 || s.RunnerOptions.Duration != -1 {
			return fmt.Errorf("status %+v: run %s not running yet", st, key)
		}
		if e.count(t, `SELECT count(*) FROM run_intervals i JOIN runs r ON r.id = i.run_id WHERE r.seq = $1`, started.RunID) == 0 {
			return fmt.Errorf("run %s has sent nothing yet", key)
		}
		return nil
	})
	e.mustDo(t, http.StatusForbidden, http.MethodGet, "/fortio/rest/stop?runid="+key, e.mustToken(t, "default", auth.Viewer), nil)
	stop := decode[fortiorest.Reply](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/rest/stop?wait=on&runid="+key, token, nil))
	if stop.Message != "stopped" || stop.Count != 1 || stop.RunID != started.RunID || stop.ResultID != started.ResultID {
		t.Errorf("stop reply %+v, want stopped, 1, the run's id", stop)
	}
	if again := decode[fortiorest.Reply](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/rest/stop?runid="+key, token, nil)); again.Count != 0 {
		t.Errorf("second stop %+v, want count 0", again)
	}
	if st := decode[fortiorest.StatusReply](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/rest/status?runid="+key, token, nil)); len(st.Statuses) != 0 {
		t.Errorf("status after the stop lists %v", st.Statuses)
	}
	if got := e.count(t, `SELECT count(*) FROM runs WHERE seq = $1 AND status = 'completed' AND count > 0`, started.RunID); got != 1 {
		var st string
		var n int64
		_ = e.db.QueryRow(`SELECT status, count FROM runs WHERE seq = $1`, started.RunID).Scan(&st, &n)
		t.Errorf("the stopped run is %s with %d requests, want completed with a partial result", st, n)
	}
	path := strings.TrimPrefix(started.ResultURL, e.URL)
	res := decode[fortioResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, path, token, nil))
	if res.RunID != started.RunID || res.RequestedDuration != "until stop" || res.RetCodes["200"] == 0 {
		t.Errorf("result at %s: %+v", path, res)
	}
	// The reply named the result by the run's creation time; when the run
	// started in a later second, that name redirects to the final one.
	e.exec(t, `UPDATE runs SET created_at = created_at - interval '1 hour' WHERE seq = $1`, started.RunID)
	made, err := time.Parse("2006-01-02-150405", started.ResultID[:17])
	if err != nil {
		t.Fatal(err)
	}
	early := made.Add(-time.Hour).Format("2006-01-02-150405") + started.ResultID[17:]
	if moved := decode[fortioResult](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/data/"+early+".json", token, nil)); moved.ID != res.ID {
		t.Errorf("the provisional ID %s led to %s, want %s", early, moved.ID, res.ID)
	}
	if st, _, _ := e.do(t, http.MethodGet, "/fortio/data/"+made.Add(-2*time.Hour).Format("2006-01-02-150405")+started.ResultID[17:]+".json", token, nil); st != http.StatusNotFound {
		t.Errorf("another time's ID: %d, want 404", st)
	}
}

// TestFortioRESTRefusesBadCalls: bad parameters are 400 naming the
// parameter, a missing or dead token 401, a viewer 403, and none of them
// makes a run.
func TestFortioRESTRefusesBadCalls(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_FORTIO_URL_TOKEN=true")
	runner, viewer := e.mustToken(t, "default", auth.Runner), e.mustToken(t, "default", auth.Viewer)
	revoked, _ := mustDeadTokens(t, e, "default")
	for _, c := range []struct{ query, field string }{
		{"url=http://target.test/&qps=abc", "qps"},
		{"url=http://target.test/&c=x", "c"},
		{"url=http://target.test/&t=42", "t"},
		{"qps=5", "url"},
		{"url=http://169.254.169.254/&n=1", "spec.url"},
	} {
		status, header, raw := e.do(t, http.MethodGet, "/fortio/rest/run?"+c.query+"&token="+runner, "", nil)
		p := wantProblem(t, status, header, raw, http.StatusBadRequest, "validation")
		if p.Errors == nil || len(*p.Errors) == 0 || (*p.Errors)[0].Field != c.field {
			t.Errorf("%s: problem %s, want the field %s", c.query, raw, c.field)
		}
	}
	status, header, raw := e.do(t, http.MethodPost, "/fortio/rest/run?jsonPath=.spec", runner, map[string]any{"metadata": map[string]any{}})
	wantProblem(t, status, header, raw, http.StatusBadRequest, "validation")
	for _, tok := range []string{"", "brg_nope", revoked} {
		status, header, raw := e.do(t, http.MethodGet, "/fortio/rest/run?url=http://target.test/&token="+url.QueryEscape(tok), "", nil)
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
		status, header, raw = e.do(t, http.MethodGet, "/fortio/rest/status", tok, nil)
		wantProblem(t, status, header, raw, http.StatusUnauthorized, "unauthenticated")
	}
	status, header, raw = e.do(t, http.MethodGet, "/fortio/rest/run?url=http://target.test/", viewer, nil)
	wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
	status, header, raw = e.do(t, http.MethodGet, "/fortio/rest/stop", viewer, nil)
	wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden")
	if n := e.count(t, `SELECT count(*) FROM runs`); n != 0 {
		t.Errorf("refused calls made %d runs", n)
	}
	// A viewer may read the status; async runs of another project are not in it.
	other := e.mustProject(t, "other")
	otherRunner := e.mustToken(t, other.Slug, auth.Runner)
	started := decode[fortiorest.Reply](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/rest/run?async=on&t=on&url=http://target.test/", otherRunner, nil))
	if st := decode[fortiorest.StatusReply](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/rest/status", viewer, nil)); len(st.Statuses) != 0 {
		t.Errorf("default's viewer sees %v", st.Statuses)
	}
	st := decode[fortiorest.StatusReply](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/rest/status", otherRunner, nil))
	if s, ok := st.Statuses[strconv.FormatInt(started.RunID, 10)]; !ok || s.State != fortiorest.StatePending {
		t.Errorf("other's status %+v, want its queued run pending", st)
	}
	if stop := decode[fortiorest.Reply](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/fortio/rest/stop", runner, nil)); stop.Count != 0 {
		t.Errorf("default's runner stopped %d runs of another project", stop.Count)
	}
	if stop := decode[fortiorest.Reply](t, e.mustDo(t, http.StatusOK, http.MethodPost, "/fortio/rest/stop", otherRunner, nil)); stop.Count != 1 || stop.Message != "stopping" {
		t.Errorf("stop all = %+v, want one stopping", stop)
	}
	if got := e.count(t, `SELECT count(*) FROM runs WHERE seq = $1 AND status = 'canceled'`, started.RunID); got != 1 {
		t.Error("the queued run was not canceled")
	}
}
