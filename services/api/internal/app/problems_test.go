package app

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// specWith returns a run request whose spec has key set to v.
func specWith(key string, v any) map[string]any {
	s := testSpec()
	s[key] = v
	return map[string]any{"project": "default", "spec": s}
}

func TestProblems(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_MAX_QPS=1000", "BARRAGE_MAX_BODY_BYTES=2048")
	e.mustTest(t, e.AdminToken, "default", "taken")
	const durationMessage = `must be a duration like "1m30s" or a number of seconds, not "ten seconds"`
	tests := []struct {
		name         string
		method, path string
		body         any
		headers      []string
		status       int
		slug         string
		// fields are the errors[].field values, sorted; messages holds
		// substrings of some of their messages.
		fields   []string
		messages map[string]string
		detail   string // a substring of the detail
	}{
		{
			name: "unknown spec field", method: "POST", path: "/runs", body: specWith("bogus", 1),
			status: 422, slug: "validation", fields: []string{"spec.bogus"}, messages: map[string]string{"spec.bogus": "unknown field"},
		},
		{
			name: "unknown top-level field", method: "POST", path: "/runs",
			body:   map[string]any{"project": "default", "spec": testSpec(), "bogus": true},
			status: 422, slug: "validation", fields: []string{"bogus"}, messages: map[string]string{"bogus": "unknown field"},
		},
		{
			name: "bad enum", method: "POST", path: "/runs", body: specWith("pacing", "warp"),
			status: 422, slug: "validation", fields: []string{"spec.pacing"},
		},
		{
			name: "bad duration string", method: "POST", path: "/runs", body: specWith("duration", "ten seconds"),
			status: 422, slug: "validation", fields: []string{"spec.duration"}, messages: map[string]string{"spec.duration": durationMessage},
		},
		{
			name: "bad nested duration", method: "POST", path: "/tests",
			body:   map[string]any{"project": "default", "name": "ramp", "spec": map[string]any{"url": "http://t.test/", "duration": "1m", "ramp": map[string]any{"to": 10, "over": "soon"}}},
			status: 422, slug: "validation", fields: []string{"spec.ramp.over"}, messages: map[string]string{"spec.ramp.over": `not "soon"`},
		},
		{
			name: "negative duration", method: "POST", path: "/runs", body: specWith("duration", -5),
			status: 422, slug: "validation", fields: []string{"spec.duration"}, messages: map[string]string{"spec.duration": "must be greater than 0"},
		},
		{
			name: "qps above -max-qps", method: "POST", path: "/runs", body: specWith("qps", 5000),
			status: 422, slug: "validation", fields: []string{"spec.qps"}, messages: map[string]string{"spec.qps": "at most 1000 on this server"},
		},
		{
			name: "spec rule", method: "POST", path: "/runs", body: specWith("url", "ftp://files.test/"),
			status: 422, slug: "validation", fields: []string{"spec.url"}, messages: map[string]string{"spec.url": `scheme "ftp" is not supported`},
		},
		{
			name: "wrong type in an array", method: "POST", path: "/runs", body: specWith("headers", []any{"X-A: 1", 5}),
			status: 422, slug: "validation", fields: []string{"spec.headers[1]"},
		},
		{
			name: "several fields at once", method: "POST", path: "/runs",
			body:   map[string]any{"project": "default", "source": "cron", "spec": map[string]any{"url": "http://t.test/", "qps": -1, "duration": "1s"}},
			status: 422, slug: "validation", fields: []string{"source", "spec.qps"},
		},
		{
			name: "missing spec field", method: "POST", path: "/runs",
			body:   map[string]any{"project": "default", "spec": map[string]any{"qps": 1, "duration": "1s"}},
			status: 422, slug: "validation", fields: []string{"spec.url"}, messages: map[string]string{"spec.url": "is required"},
		},
		{
			name: "missing top-level field", method: "POST", path: "/projects", body: map[string]any{"slug": "abc"},
			status: 422, slug: "validation", fields: []string{"name"}, messages: map[string]string{"name": "is required"},
		},
		{
			name: "malformed JSON", method: "POST", path: "/runs", body: `{"project": "default", "spec": {`,
			status: 400, slug: "bad-request", detail: "not valid JSON",
		},
		{
			name: "text/plain body", method: "POST", path: "/runs", body: "hello", headers: []string{"Content-Type", "text/plain"},
			status: 415, slug: "unsupported-media-type",
		},
		{
			name: "body over -max-body-bytes", method: "POST", path: "/runs", body: `{"name":"` + strings.Repeat("x", 4096) + `"}`,
			status: 413, slug: "payload-too-large", detail: "larger than 2048 bytes",
		},
		{
			name: "chunked body over -max-body-bytes", method: "POST", path: "/runs",
			body:   io.MultiReader(strings.NewReader(`{"name":"` + strings.Repeat("x", 4096) + `"}`)),
			status: 413, slug: "payload-too-large", detail: "larger than 2048 bytes",
		},
		{name: "unknown route", method: "GET", path: "/api/v1/nope", status: 404, slug: "not-found"},
		{name: "unknown route outside the API", method: "GET", path: "/api/v2/runs", status: 404, slug: "not-found"},
		{name: "method not allowed", method: "DELETE", path: "/runs", status: 405, slug: "method-not-allowed"},
		{name: "limit=0", method: "GET", path: "/runs?limit=0", status: 422, slug: "validation", fields: []string{"limit"}},
		{name: "limit=201", method: "GET", path: "/tests?limit=201", status: 422, slug: "validation", fields: []string{"limit"}},
		{name: "limit=abc", method: "GET", path: "/projects?limit=abc", status: 422, slug: "validation", fields: []string{"limit"}},
		{
			name: "bad cursor", method: "GET", path: "/runs?cursor=bm90LWEtY3Vyc29y", status: 422, slug: "validation",
			fields: []string{"cursor"}, messages: map[string]string{"cursor": "is not a cursor this API returned"},
		},
		{name: "bad status filter", method: "GET", path: "/runs?status=bogus", status: 422, slug: "validation", fields: []string{"status[0]"}},
		{name: "bad label filter", method: "GET", path: "/runs?status=queued&label=nokey", status: 422, slug: "validation", fields: []string{"label[0]"}},
		{name: "bad test filter", method: "GET", path: "/runs?test=42", status: 422, slug: "validation", fields: []string{"test"}},
		{
			name: "bad run id in the path", method: "GET", path: "/runs/not-a-uuid", status: 422, slug: "validation",
			fields: []string{"run"}, messages: map[string]string{"run": "must be a UUID"},
		},
		{name: "bad test id in the path", method: "PUT", path: "/tests/42", body: map[string]any{"name": "x", "spec": testSpec()}, status: 422, slug: "validation", fields: []string{"test"}},
		{name: "bad token id in the path", method: "DELETE", path: "/tokens/42", status: 422, slug: "validation", fields: []string{"token"}},
		{name: "run that does not exist", method: "GET", path: "/runs/" + uuid.NewString(), status: 404, slug: "not-found"},
		{
			name: "duplicate project slug", method: "POST", path: "/projects", body: map[string]any{"slug": "default", "name": "Again"},
			status: 409, slug: "conflict", detail: `"default"`,
		},
		{
			name: "duplicate test name", method: "POST", path: "/tests", body: map[string]any{"project": "default", "name": "taken", "spec": testSpec()},
			status: 409, slug: "conflict",
		},
		{
			name: "grpc method not package.Service/Method", method: "POST", path: "/tests",
			body: map[string]any{"project": "default", "name": "m", "spec": map[string]any{"url": "grpc://t.test:9000", "duration": "1s",
				"grpc": map[string]any{"mode": "method", "method": "a.B.C"}}},
			status: 422, slug: "validation", fields: []string{"spec.grpc.method"},
			messages: map[string]string{"spec.grpc.method": "want package.Service/Method"},
		},
		{
			name: "grpc streams above the maximum", method: "POST", path: "/tests",
			body: map[string]any{"project": "default", "name": "s", "spec": map[string]any{"url": "grpc://t.test:9000", "duration": "1s",
				"grpc": map[string]any{"streams": 1001}}},
			status: 422, slug: "validation", fields: []string{"spec.grpc.streams"},
		},
		{
			name: "project slug breaking its rule", method: "POST", path: "/projects", body: map[string]any{"slug": "Not_A_Slug", "name": "x"},
			status: 422, slug: "validation", fields: []string{"slug"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, header, raw := e.do(t, tt.method, tt.path, e.AdminToken, tt.body, tt.headers...)
			p := wantProblem(t, status, header, raw, tt.status, tt.slug)
			if got := problemFields(p); !slices.Equal(got, tt.fields) {
				t.Errorf("fields = %q, want %q; body: %s", got, tt.fields, raw)
			}
			for field, want := range tt.messages {
				if msg, _ := fieldMessage(p, field); !strings.Contains(msg, want) {
					t.Errorf("message of %s = %q, want it to contain %q", field, msg, want)
				}
			}
			if p.Detail == nil || !strings.Contains(*p.Detail, tt.detail) {
				t.Errorf("detail = %v, want it to contain %q", p.Detail, tt.detail)
			}
			if p.Instance == nil || *p.Instance != strings.SplitN(apiPath(tt.path), "?", 2)[0] {
				t.Errorf("instance = %v, want the request path", p.Instance)
			}
			if p.Title == "" || p.RequestId == nil || *p.RequestId != header.Get("X-Request-Id") {
				t.Errorf("title %q, request_id %v; want a title and the X-Request-Id", p.Title, p.RequestId)
			}
			if tt.status == http.StatusMethodNotAllowed && header.Get("Allow") != "GET, POST" {
				t.Errorf("Allow = %q, want GET, POST", header.Get("Allow"))
			}
		})
	}
}

// TestGRPCMethodAndStreamsSpec: a stored test keeps grpc.method, the JSON
// payload and grpc.streams.
func TestGRPCMethodAndStreamsSpec(t *testing.T) {
	t.Parallel()
	e := startAPI(t)
	body := map[string]any{"project": "default", "name": "reflect", "spec": map[string]any{
		"url": "grpc://t.test:9000", "duration": "1s", "connections": 2, "payload": `{"seq": 1}`,
		"grpc": map[string]any{"mode": "method", "method": "fgrpc.PingServer/Ping", "streams": 4},
	}}
	raw := e.mustDo(t, http.StatusCreated, http.MethodPost, "/tests", e.AdminToken, body)
	got := decode[struct {
		Spec struct {
			Payload string `json:"payload"`
			GRPC    struct {
				Mode, Method string
				Streams      int
			} `json:"grpc"`
		} `json:"spec"`
	}](t, raw)
	g := got.Spec.GRPC
	if g.Mode != "method" || g.Method != "fgrpc.PingServer/Ping" || g.Streams != 4 || got.Spec.Payload != `{"seq": 1}` {
		t.Fatalf("stored spec: %s", raw)
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	e := startAPI(t, "BARRAGE_RATE_LIMIT=1", "BARRAGE_RATE_BURST=2")
	// The bootstrap admin's two tokens share one budget: it is per user.
	other := e.mustToken(t, "default", "viewer")
	e.mustDo(t, http.StatusOK, http.MethodGet, "/me", other, nil)
	status, header, raw := e.do(t, http.MethodGet, "/me", e.AdminToken, nil)
	p := wantProblem(t, status, header, raw, http.StatusTooManyRequests, "rate-limited")
	if got := header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After = %q, want 1", got)
	}
	if p.Detail == nil || !strings.Contains(*p.Detail, "retry in 1 s") {
		t.Errorf("detail = %v, want it to say when to retry", p.Detail)
	}
	// Before sign-in the budget is the client address's, apart from users'.
	for range 2 {
		status, header, raw := e.do(t, http.MethodPost, "/auth/login", "", map[string]any{})
		wantProblem(t, status, header, raw, http.StatusUnprocessableEntity, "validation")
	}
	status, header, raw = e.do(t, http.MethodPost, "/auth/login", "", map[string]any{})
	wantProblem(t, status, header, raw, http.StatusTooManyRequests, "rate-limited")
	if header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
}
