package app

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/promtest"
	"github.com/barrage-dev/barrage/services/api/internal/remotewrite"
)

// TestRemoteWriteRoundTrip configures the default project to remote-write
// into a real Prometheus, runs a load through an agent and the echo, and
// asks Prometheus with PromQL: the run's request count is what Barrage
// stored, its p99 gauge is the stored p99, and the p99 of its classic
// histogram falls in the bucket that holds the stored p99.
func TestRemoteWriteRoundTrip(t *testing.T) { // serial: see heavyTests
	prom := promtest.Start(t)
	e := startAPI(t, "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	startAgents(t, e.NATSURL, 1)

	const secretHeader, secretToken = "tenant-s3cret-value", "token-s3cret-value"
	raw := e.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/remote-write", e.AdminToken, map[string]any{
		"url": prom.WriteURL(), "headers": map[string]string{"X-Scope-OrgID": secretHeader}, "bearer_token": secretToken,
	})
	for _, body := range [][]byte{raw, e.mustDo(t, http.StatusOK, http.MethodGet, "/projects/default/remote-write", e.AdminToken, nil)} {
		got := decode[client.RemoteWrite](t, body)
		if got.Url != prom.WriteURL() || !slices.Equal(got.HeaderNames, []string{"X-Scope-OrgID"}) || got.Auth != "bearer" || !got.Enabled {
			t.Fatalf("remote write %+v", got)
		}
		if strings.Contains(string(body), secretHeader) || strings.Contains(string(body), secretToken) {
			t.Fatalf("a secret came back: %s", body)
		}
	}
	if n := e.count(t, `SELECT count(*) FROM remote_writes WHERE position($1::bytea IN sealed_secrets) > 0`, secretToken); n != 0 {
		t.Fatal("the bearer token is stored in clear")
	}

	run := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default", "name": "rw-roundtrip", "labels": map[string]string{"team": "checkout", "run": "clash"},
		"spec": map[string]any{"url": echo + "/?delay=2ms", "qps": 100, "connections": 2, "duration": "3s"},
	}))
	id := run.Id.String()
	done := e.waitRun(t, id, 40*time.Second)
	if done.Status != "completed" || done.Summary == nil || done.Summary.Count < 250 {
		t.Fatalf("run ended %s (error %q), summary %+v", done.Status, derefS(done.Error), done.Summary)
	}
	sel := fmt.Sprintf(`{run=%q}`, id)
	waitFor(t, 20*time.Second, func() error {
		got := prom.Query(t, remotewrite.MetricRequests+sel)
		if len(got) != 1 || got[0].Value != float64(done.Summary.Count) {
			return fmt.Errorf("requests_total in Prometheus %v, Barrage stored %d", got, done.Summary.Count)
		}
		return nil
	})
	labels := prom.Query(t, remotewrite.MetricRequests+sel)[0].Labels
	for k, want := range map[string]string{"project": "default", "name": "rw-roundtrip", "team": "checkout", "label_run": "clash", "test": ""} {
		if labels[k] != want {
			t.Errorf("label %s = %q, want %q (labels %v)", k, labels[k], want, labels)
		}
	}
	if v := prom.Value(t, remotewrite.MetricErrors+sel); v != float64(done.Summary.Errors) {
		t.Errorf("errors_total %v, stored %d", v, done.Summary.Errors)
	}
	if v := prom.Value(t, remotewrite.MetricResponses+fmt.Sprintf(`{run=%q,code="200"}`, id)); v != float64(done.Summary.Count) {
		t.Errorf("responses_total{code=200} %v, stored count %d", v, done.Summary.Count)
	}
	if v := prom.Value(t, remotewrite.MetricTargetQPS+sel); v != 100 {
		t.Errorf("target qps %v, want 100", v)
	}

	p99 := deref(done.Summary.P99Us) / 1e6
	if v := prom.Value(t, remotewrite.MetricQuantile+fmt.Sprintf(`{run=%q,quantile="0.99"}`, id)); math.Abs(v-p99) > 1e-9 {
		t.Errorf("p99 gauge %v s, Barrage stored %v s", v, p99)
	}
	if v := prom.Value(t, remotewrite.MetricLatency+"_count"+sel); v != float64(done.Summary.Count) {
		t.Errorf("latency histogram counts %v, stored count %d", v, done.Summary.Count)
	}
	lo, hi := 0.0, math.Inf(1)
	for _, b := range remotewrite.LatencyBuckets() {
		if b >= p99 {
			hi = b
			break
		}
		lo = b
	}
	q := prom.Value(t, fmt.Sprintf(`histogram_quantile(0.99, %s_bucket%s)`, remotewrite.MetricLatency, sel))
	if q < lo || q > hi {
		t.Errorf("histogram_quantile(0.99) = %v s, outside the bucket (%v, %v] of the stored p99 %v s", q, lo, hi, p99)
	}
	t.Logf("count %d, p99 %v s, histogram_quantile %v s in (%v, %v]", done.Summary.Count, p99, q, lo, hi)

	api := parseSamples(t, scrapePage(t, e.URL+"/metrics", ""))
	if api["barrage_remote_write_samples_sent_total"] == 0 || api["barrage_remote_write_samples_dropped_total"] != 0 {
		t.Errorf("remote write metrics: sent %v, dropped %v", api["barrage_remote_write_samples_sent_total"], api["barrage_remote_write_samples_dropped_total"])
	}
}

// TestRemoteWriteConfigRules: a URL outside the target policy is refused
// with 403 on url, a malformed one with 422, and DELETE removes it.
func TestRemoteWriteConfigRules(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	status, header, raw := e.do(t, http.MethodPut, "/projects/default/remote-write", e.AdminToken, map[string]any{"url": "http://10.1.2.3:9090/api/v1/write"})
	if p := wantProblem(t, status, header, raw, http.StatusForbidden, "forbidden"); !slices.Equal(problemFields(p), []string{"url"}) {
		t.Errorf("fields %v, want url", problemFields(p))
	}
	status, header, raw = e.do(t, http.MethodPut, "/projects/default/remote-write", e.AdminToken, map[string]any{
		"url": "ftp://127.0.0.1/x", "headers": map[string]string{"Authorization": "x"}, "bearer_token": "a", "basic_auth": map[string]any{"username": "u"},
	})
	if p := wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation"); !slices.Equal(problemFields(p), []string{"bearer_token", "headers.Authorization", "url"}) {
		t.Errorf("fields %v", problemFields(p))
	}
	e.mustDo(t, http.StatusNotFound, http.MethodGet, "/projects/default/remote-write", e.AdminToken, nil)
	e.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/remote-write", e.AdminToken, map[string]any{
		"url": "http://127.0.0.1:9/api/v1/write", "basic_auth": map[string]any{"username": "u", "password": "p"}, "enabled": false,
	})
	// A key in the URL's query is shown redacted, as in specs.
	got := decode[client.RemoteWrite](t, e.mustDo(t, http.StatusOK, http.MethodPut, "/projects/default/remote-write", e.AdminToken,
		map[string]any{"url": "http://127.0.0.1:9/api/v1/write?api_key=k3y-s3cret&tenant=a", "enabled": false}))
	if strings.Contains(got.Url, "k3y-s3cret") || !strings.Contains(got.Url, "tenant=a") {
		t.Errorf("url shown as %q", got.Url)
	}
	e.mustDo(t, http.StatusNoContent, http.MethodDelete, "/projects/default/remote-write", e.AdminToken, nil)
	e.mustDo(t, http.StatusNotFound, http.MethodDelete, "/projects/default/remote-write", e.AdminToken, nil)
}
