package app

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	tracev1 "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/services/api/client"
)

// otlpReceiver is an OTLP/HTTP trace endpoint (POST /v1/traces, protobuf,
// gzip or not) that keeps the spans it is sent with their resource's
// service.name: the real protocol of a collector, in the test.
type otlpReceiver struct {
	mu      sync.Mutex
	spans   []*tracev1.Span
	service map[string]bool
	posts   int
}

func startOTLPReceiver(t *testing.T) (*otlpReceiver, string) {
	t.Helper()
	r := &otlpReceiver{service: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want POST /v1/traces application/x-protobuf", http.StatusBadRequest)
			return
		}
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = gz
		}
		b, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var export collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &export); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.posts++
		for _, rs := range export.GetResourceSpans() {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.GetKey() == "service.name" {
					r.service[a.GetValue().GetStringValue()] = true
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				r.spans = append(r.spans, ss.GetSpans()...)
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return r, srv.URL
}

// find returns the first span received that match accepts.
func (r *otlpReceiver) find(match func(*tracev1.Span) bool) *tracev1.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.spans {
		if match(s) {
			return s
		}
	}
	return nil
}

// attr returns span attribute key as text ("" when absent).
func attr(s *tracev1.Span, key string) string {
	for _, a := range s.GetAttributes() {
		if a.GetKey() == key {
			return anyText(a.GetValue())
		}
	}
	return ""
}

func anyText(v *commonv1.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonv1.AnyValue_StringValue:
		return x.StringValue
	case *commonv1.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonv1.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	default:
		return v.String()
	}
}

// TestOTLPTraces runs barrage-api with -otel-traces against an OTLP/HTTP
// receiver in the test, named by the standard OTEL_EXPORTER_OTLP_ENDPOINT,
// and a real agent: a request's server span is named by its route
// template with its status; a run created by a POST gets a dispatch span
// that is the child of the POST's span, and the agent's log line for the
// shard carries that trace's id, which reached it in the assignment's
// traceparent header.
func TestOTLPTraces(t *testing.T) { // serial: see heavyTests; t.Setenv
	recv, endpoint := startOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "100") // milliseconds
	e := startAPI(t, "BARRAGE_OTEL_TRACES=true", "BARRAGE_DISPATCH_WAIT=10s")
	echo := startEcho(t)
	var agentLog syncBuffer
	startAgentsLogged(t, e.NATSURL, 1, &agentLog, slog.LevelInfo)

	missing := uuid.NewString()
	e.mustDo(t, http.StatusNotFound, http.MethodGet, "/runs/"+missing, e.AdminToken, nil)
	created := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", e.AdminToken, map[string]any{
		"project": "default",
		"spec":    map[string]any{"url": echo + "/", "qps": 20, "connections": 1, "duration": "1s"},
	}, "X-Request-Id", "otlp-trace-1"))
	run := e.waitRun(t, created.Id.String(), 40*time.Second)
	if run.Status != "completed" {
		t.Fatalf("run ended %s (error %q)", run.Status, derefS(run.Error))
	}

	var get, post, dispatch *tracev1.Span
	waitFor(t, 10*time.Second, func() error {
		get = recv.find(func(s *tracev1.Span) bool {
			return s.GetName() == "GET /api/v1/runs/:run" && attr(s, "url.path") == "/api/v1/runs/"+missing
		})
		post = recv.find(func(s *tracev1.Span) bool {
			return s.GetName() == "POST /api/v1/runs" && attr(s, "barrage.request_id") == "otlp-trace-1"
		})
		dispatch = recv.find(func(s *tracev1.Span) bool {
			return s.GetName() == "dispatch run" && attr(s, "barrage.run.id") == created.Id.String() && attr(s, "barrage.shards") == "1"
		})
		if get == nil || post == nil || dispatch == nil {
			return fmt.Errorf("spans received: GET %v, POST %v, dispatch %v", get != nil, post != nil, dispatch != nil)
		}
		return nil
	})
	for _, c := range []struct {
		span                  *tracev1.Span
		method, route, status string
	}{{get, "GET", "/api/v1/runs/:run", "404"}, {post, "POST", "/api/v1/runs", "201"}} {
		if c.span.GetKind() != tracev1.Span_SPAN_KIND_SERVER || attr(c.span, "http.request.method") != c.method ||
			attr(c.span, "http.route") != c.route || attr(c.span, "http.response.status_code") != c.status {
			t.Errorf("span %q: kind %v, method %q, route %q, status %q; want server, %s, %s, %s", c.span.GetName(), c.span.GetKind(),
				attr(c.span, "http.request.method"), attr(c.span, "http.route"), attr(c.span, "http.response.status_code"), c.method, c.route, c.status)
		}
	}
	traceID := hex.EncodeToString(post.GetTraceId())
	if got := hex.EncodeToString(dispatch.GetTraceId()); got != traceID || hex.EncodeToString(dispatch.GetParentSpanId()) != hex.EncodeToString(post.GetSpanId()) {
		t.Errorf("dispatch span in trace %s under span %x, want the POST's trace %s under its span %x",
			got, dispatch.GetParentSpanId(), traceID, post.GetSpanId())
	}
	if dispatch.GetKind() != tracev1.Span_SPAN_KIND_PRODUCER || attr(dispatch, "messaging.system") != "nats" {
		t.Errorf("dispatch span kind %v, messaging.system %q; want producer, nats", dispatch.GetKind(), attr(dispatch, "messaging.system"))
	}
	if hex.EncodeToString(get.GetTraceId()) == traceID {
		t.Errorf("the GET and the POST share trace %s; each request starts its own", traceID)
	}
	recv.mu.Lock()
	services := fmt.Sprint(recv.service)
	recv.mu.Unlock()
	if services != "map[barrage-api:true]" {
		t.Errorf("resources' service.name %s, want barrage-api alone", services)
	}

	// The agent logged the dispatch's trace id on the shard's lines.
	var line string
	for l := range strings.SplitSeq(agentLog.String(), "\n") {
		if strings.Contains(l, "shard starting") && strings.Contains(l, "run="+created.Id.String()) {
			line = l
		}
	}
	if !strings.Contains(line, "trace_id="+traceID) || !strings.Contains(line, "request_id=otlp-trace-1") {
		t.Errorf("agent's shard starting line %q lacks trace_id=%s and request_id=otlp-trace-1", line, traceID)
	}
}
