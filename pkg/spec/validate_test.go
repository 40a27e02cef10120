package spec

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestValidateAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec Spec
	}{
		{"http", Spec{URL: target}},
		{"http with port and query", Spec{URL: "http://user:pw@example.com:8080/echo?status=200&delay=10ms"}},
		{"https h2", Spec{URL: "https://example.com/", H2: true, Insecure: true}},
		{"h2c", Spec{URL: "h2c://example.com:8080/"}},
		{"ipv6 host", Spec{URL: "http://[::1]:8080/"}},
		{"grpc health", Spec{URL: "grpc://example.com:8079", GRPC: &GRPC{Service: "ping"}}},
		{"grpcs ping", Spec{URL: "grpcs://example.com:443/", Payload: "hi",
			GRPC: &GRPC{Mode: GRPCPing, PingDelay: dur(10 * time.Second)}}},
		{"grpc method", Spec{URL: "grpc://example.com:8079", Payload: ` {"seq": 1, "payload": "hi"} `,
			GRPC: &GRPC{Method: "fgrpc.PingServer/Ping", Streams: MaxStreams}, Connections: MaxConnections / MaxStreams}},
		{"grpc method no package, leading slash, payload file", Spec{URL: "grpc://example.com:8079",
			PayloadFile: "req.json", GRPC: &GRPC{Mode: GRPCMethod, Method: "/_Svc9/Do_it"}}},
		{"grpc method empty request", Spec{URL: "grpc://example.com:8079", GRPC: &GRPC{Method: "grpc.health.v1.Health/Check"}}},
		{"grpc ping streams", Spec{URL: "grpc://example.com:8079", GRPC: &GRPC{Mode: GRPCPing, Streams: 8}}},
		{"tcp", Spec{URL: "tcp://example.com:8078", Payload: "hello"}},
		{"udp", Spec{URL: "udp://127.0.0.1:8078", Payload: strings.Repeat("x", MaxUDPPayloadBytes)}},
		{"open qps", Spec{URL: target, QPS: MaxQPS, Connections: MaxConnections, Duration: dur(24 * time.Hour)}},
		{"fortio max speed", Spec{URL: target, Pacing: PacingFortio, NoCatchUp: true}},
		{"latency header", Spec{URL: target, LatencyHeader: "Server-Timing"}},
		{"fortio paced", Spec{URL: target, QPS: 10, Pacing: PacingFortio, Jitter: true, Uniform: true}},
		{"count", Spec{URL: target, Count: MaxCount}},
		{"until stopped", Spec{URL: target, UntilStopped: true, QPS: 1}},
		{"ramp with qps 0", Spec{URL: target, Ramp: &Ramp{To: 100, Over: dur(5 * time.Second)}}},
		{"ramp with qps equal to", Spec{URL: target, QPS: 100, Duration: dur(time.Minute),
			Ramp: &Ramp{From: 10, To: 100, Over: dur(30 * time.Second)}}},
		{"ramp with count", Spec{URL: target, Count: 100, Ramp: &Ramp{To: 100, Over: dur(time.Hour)}}},
		{"method token", Spec{URL: target, Method: "M-SEARCH"}},
		{"headers", Spec{URL: target, Headers: []string{"Authorization: Bearer x", "X-Empty:", "A:\tb c"}}},
		{"grpc metadata", Spec{URL: "grpc://example.com:8079", Headers: []string{"x-tenant: a"}}},
		{"post payload", Spec{URL: target, Payload: strings.Repeat("x", MaxPayloadBytes), ContentType: "text/plain"}},
		{"payload file", Spec{URL: target, PayloadFile: "/tmp/body.json"}},
		{"timeout max", Spec{URL: target, Timeout: dur(MaxTimeout)}},
		{"percentiles", Spec{URL: target, Percentiles: []float64{0.001, 100}}},
		{"labels", Spec{URL: target, Labels: map[string]string{"team.a_b-C9": strings.Repeat("é", MaxLabelValueLength)}}},
		{"agents", Spec{URL: target, Agents: &Agents{Count: MaxAgents, Selector: map[string]string{"zone": "eu-1"}}}},
		{"abort on socket errors", Spec{URL: target, AbortOn: -1}},
		{"abort on 503", Spec{URL: target, AbortOn: 503}},
		{"url template", Spec{URL: "http://example.com/post/{seq:6}?r={rand:10}&a={alpha:4}&u={uuid}"}},
		{"goader url template", Spec{URL: "http://example.com/post/XXXXX/NNN/RRRR"}},
		{"payload template", Spec{URL: target, Payload: `{"id":{seq},"name":"{alpha:8}"}`}},
		{"url list", Spec{URLs: []string{"http://example.com/a", "HTTP://Example.com/b/{seq}"}, URLOrder: URLRandom}},
		{"request mix", Spec{URL: target, Requests: []Request{
			{URL: target + "post/{seq}", Body: `{"id":{seq}}`, Weight: 3, Headers: []string{"X-A: 1"}},
			{URL: target + "get/{rand:9}", Name: "reads"},
			{URL: target + "blob", Method: "PUT", BodySize: &BodySize{Min: 0, Max: 1000, Fair: true}},
		}}},
		{"request mix own rates", Spec{URL: target, Requests: []Request{{URL: target, QPS: 10}, {URL: target, QPS: 5}}}},
		{"braces in a tcp payload are text", Spec{URL: "tcp://example.com:8078", Payload: "{rand:0}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := normalized(tt.spec).Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

// validateCase is one rule of TestValidateRejects: spec is normalized, then
// post (when set) changes it, then Validate must name exactly fields.
type validateCase struct {
	name   string
	spec   Spec
	post   func(*Spec)
	fields []string
	msg    string // when set, the first problem's Error() must equal it
}

func TestValidateRejects(t *testing.T) {
	t.Parallel()
	var tests []validateCase
	tests = append(tests, urlCases()...)
	tests = append(tests, rateCases()...)
	tests = append(tests, requestCases()...)
	tests = append(tests, grpcAndReportCases()...)
	tests = append(tests, templateCases()...)
	tests = append(tests, grpcMethodCases()...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := normalized(tt.spec)
			if tt.post != nil {
				tt.post(&s)
			}
			err := s.Validate()
			if got := errorFields(t, err); !slices.Equal(got, tt.fields) {
				t.Fatalf("fields = %q, want %q (error: %v)", got, tt.fields, err)
			}
			if tt.msg != "" {
				var ve *ValidationError
				errors.As(err, &ve)
				if got := ve.Errors[0].Error(); got != tt.msg {
					t.Errorf("message = %q, want %q", got, tt.msg)
				}
			}
		})
	}
}

func urlCases() []validateCase {
	return []validateCase{
		{name: "url missing", spec: Spec{}, fields: []string{"url"}, msg: "url: is required"},
		{name: "url too long", spec: Spec{URL: target + strings.Repeat("a", MaxURLLength)}, fields: []string{"url"}},
		{name: "url unparseable", spec: Spec{URL: "http://exa mple.com/"}, fields: []string{"url"}},
		{name: "url control char", spec: Spec{URL: "http://example.com/\r\nX: y"}, fields: []string{"url"}},
		{name: "url no scheme", spec: Spec{URL: "example.com/x"}, fields: []string{"url"}},
		{name: "url bad scheme", spec: Spec{URL: "ftp://example.com/"}, fields: []string{"url"},
			msg: `url: scheme "ftp" is not supported; use http, https, h2c, grpc, grpcs, tcp or udp`},
		{name: "url no host", spec: Spec{URL: "http:///path"}, fields: []string{"url"}},
		{name: "url port only", spec: Spec{URL: "tcp://:8078"}, fields: []string{"url"}},
		{name: "url port out of range", spec: Spec{URL: "http://example.com:70000/"}, fields: []string{"url"}},
		{name: "url port zero", spec: Spec{URL: "udp://example.com:0"}, fields: []string{"url"}},
		{name: "grpc needs port", spec: Spec{URL: "grpc://example.com"}, fields: []string{"url"}},
		{name: "tcp needs port", spec: Spec{URL: "tcp://example.com"}, fields: []string{"url"},
			msg: "url: must include a port, like tcp://host:port"},
		{name: "udp no path", spec: Spec{URL: "udp://example.com:1/x"}, fields: []string{"url"}},
		{name: "tcp no query", spec: Spec{URL: "tcp://example.com:1?x=1"}, fields: []string{"url"}},
		{name: "grpc no user", spec: Spec{URL: "grpc://u:p@example.com:1"}, fields: []string{"url"}},
	}
}

func rateCases() []validateCase {
	return []validateCase{
		{name: "qps negative", spec: Spec{URL: target, QPS: -1}, fields: []string{"qps"}, msg: "qps: must be at least 0"},
		{name: "qps too high", spec: Spec{URL: target, QPS: 2e6}, fields: []string{"qps"},
			msg: "qps: must be at most 1000000"},
		{name: "qps NaN", spec: Spec{URL: target, QPS: math.NaN()}, fields: []string{"qps"}},
		{name: "qps Inf", spec: Spec{URL: target, QPS: math.Inf(1)}, fields: []string{"qps"}},
		{name: "connections zero", spec: Spec{URL: target}, post: func(s *Spec) { s.Connections = 0 },
			fields: []string{"connections"}},
		{name: "connections negative", spec: Spec{URL: target, Connections: -1}, fields: []string{"connections"}},
		{name: "connections too many", spec: Spec{URL: target, Connections: MaxConnections + 1},
			fields: []string{"connections"}},
		{name: "duration negative", spec: Spec{URL: target, Duration: dur(-time.Second)}, fields: []string{"duration"},
			msg: "duration: must be greater than 0"},
		{name: "duration too long", spec: Spec{URL: target, Duration: dur(25 * time.Hour)}, fields: []string{"duration"},
			msg: "duration: must be at most 24h"},
		{name: "duration and count", spec: Spec{URL: target, Duration: dur(time.Second), Count: 5},
			fields: []string{"duration"}},
		{name: "duration and until_stopped", spec: Spec{URL: target, Duration: dur(time.Second), UntilStopped: true},
			fields: []string{"duration"}},
		{name: "count and until_stopped", spec: Spec{URL: target, Count: 5, UntilStopped: true},
			fields: []string{"count"}},
		{name: "no run length", spec: Spec{URL: target}, post: func(s *Spec) { s.Duration = 0 },
			fields: []string{"duration"}},
		{name: "count negative", spec: Spec{URL: target, Count: -1}, fields: []string{"count"}},
		{name: "count too high", spec: Spec{URL: target, Count: MaxCount + 1}, fields: []string{"count"}},
		{name: "pacing unknown", spec: Spec{URL: target, Pacing: "poisson"}, fields: []string{"pacing"}},
		{name: "pacing missing", spec: Spec{URL: target}, post: func(s *Spec) { s.Pacing = "" },
			fields: []string{"pacing"}},
		{name: "open without qps", spec: Spec{URL: target, Pacing: PacingOpen}, fields: []string{"pacing"}},
		{name: "closed with qps", spec: Spec{URL: target, QPS: 10, Pacing: PacingClosed}, fields: []string{"pacing"}},
		{name: "no_catchup without fortio", spec: Spec{URL: target, QPS: 10, NoCatchUp: true},
			fields: []string{"no_catchup"}},
		{name: "abort_if_rate_not_held without a rate", spec: Spec{URL: target, AbortIfRateNotHeld: true},
			fields: []string{"abort_if_rate_not_held"}, msg: "abort_if_rate_not_held: needs a target rate: qps > 0 or a ramp, and open or fortio pacing"},
		{name: "ramp from negative", spec: Spec{URL: target, Ramp: &Ramp{From: -1, To: 5, Over: dur(time.Second)}},
			fields: []string{"ramp.from"}},
		{name: "ramp to zero", spec: Spec{URL: target, Ramp: &Ramp{To: 0, Over: dur(time.Second)}},
			fields: []string{"ramp.to"}, msg: "ramp.to: must be greater than 0"},
		{name: "ramp to too high", spec: Spec{URL: target, Ramp: &Ramp{To: 2e6, Over: dur(time.Second)}},
			fields: []string{"ramp.to"}},
		{name: "ramp over zero", spec: Spec{URL: target, Ramp: &Ramp{To: 5}}, fields: []string{"ramp.over"}},
		{name: "ramp over past duration", spec: Spec{URL: target, Ramp: &Ramp{To: 5, Over: dur(6 * time.Second)}},
			fields: []string{"ramp.over"}, msg: "ramp.over: must be at most the duration (5s)"},
		{name: "ramp with fortio pacing", spec: Spec{URL: target, Pacing: PacingFortio,
			Ramp: &Ramp{To: 5, Over: dur(time.Second)}}, fields: []string{"ramp"}},
		{name: "ramp with closed pacing", spec: Spec{URL: target, Pacing: PacingClosed,
			Ramp: &Ramp{To: 5, Over: dur(time.Second)}}, fields: []string{"ramp"}},
		{name: "ramp with other qps", spec: Spec{URL: target, QPS: 50, Ramp: &Ramp{To: 100, Over: dur(time.Second)}},
			fields: []string{"qps"}},
	}
}

func requestCases() []validateCase {
	tooMany := make([]string, MaxHeaders+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("X-H%d: v", i)
	}
	return []validateCase{
		{name: "method lower case", spec: Spec{URL: target, Method: "get"}, fields: []string{"method"}},
		{name: "method with space", spec: Spec{URL: target, Method: "GE T"}, fields: []string{"method"}},
		{name: "method missing", spec: Spec{URL: target}, post: func(s *Spec) { s.Method = "" },
			fields: []string{"method"}},
		{name: "method on tcp", spec: Spec{URL: "tcp://example.com:1", Method: "GET"}, fields: []string{"method"}},
		{name: "header without colon", spec: Spec{URL: target, Headers: []string{"A: b", "NoColon"}},
			fields: []string{"headers[1]"}, msg: `headers[1]: want "Name: value"`},
		{name: "header empty name", spec: Spec{URL: target, Headers: []string{": v"}}, fields: []string{"headers[0]"}},
		{name: "header bad name", spec: Spec{URL: target, Headers: []string{"Bad Name: v"}},
			fields: []string{"headers[0]"}},
		{name: "header CRLF", spec: Spec{URL: target, Headers: []string{"X: a\r\nEvil: b"}},
			fields: []string{"headers[0]"}},
		{name: "header NUL", spec: Spec{URL: target, Headers: []string{"X: a\x00"}}, fields: []string{"headers[0]"}},
		// Found by FuzzLoadFlags: JSON turns such bytes into U+FFFD, so the
		// spec sent would not be the spec checked.
		{name: "header not UTF-8", spec: Spec{URL: target, Headers: []string{"X: \xc3"}}, fields: []string{"headers[0]"}},
		{name: "url not UTF-8", spec: Spec{URL: target + "\xc3"}, fields: []string{"url"}},
		{name: "payload not UTF-8", spec: Spec{URL: target, Payload: "\xff\xfe"}, fields: []string{"payload"}},
		{name: "label not UTF-8", spec: Spec{URL: target, Labels: map[string]string{"k": "\xc3"}}, fields: []string{"labels.k"}},
		{name: "header too long", spec: Spec{URL: target, Headers: []string{"X: " + strings.Repeat("a", MaxHeaderLength)}},
			fields: []string{"headers[0]"}},
		{name: "too many headers", spec: Spec{URL: target, Headers: tooMany}, fields: []string{"headers"}},
		{name: "headers on udp", spec: Spec{URL: "udp://example.com:1", Headers: []string{"A: b"}},
			fields: []string{"headers"}},
		{name: "payload and file", spec: Spec{URL: target, Payload: "x", PayloadFile: "f"},
			fields: []string{"payload_file"}},
		{name: "payload too big", spec: Spec{URL: target, Payload: strings.Repeat("x", MaxPayloadBytes+1)},
			fields: []string{"payload"}},
		{name: "udp payload too big", spec: Spec{URL: "udp://example.com:1", Payload: strings.Repeat("x", 70000)},
			fields: []string{"payload"}},
		{name: "payload file NUL", spec: Spec{URL: target, PayloadFile: "a\x00b"}, fields: []string{"payload_file"}},
		{name: "content type on tcp", spec: Spec{URL: "tcp://example.com:1", ContentType: "text/plain"},
			fields: []string{"content_type"}},
		{name: "content type LF", spec: Spec{URL: target, ContentType: "text/plain\nX: y"},
			fields: []string{"content_type"}},
		{name: "timeout negative", spec: Spec{URL: target, Timeout: dur(-time.Second)}, fields: []string{"timeout"}},
		{name: "timeout too long", spec: Spec{URL: target, Timeout: dur(6 * time.Minute)}, fields: []string{"timeout"},
			msg: "timeout: must be at most 5m"},
		{name: "timeout missing", spec: Spec{URL: target}, post: func(s *Spec) { s.Timeout = 0 },
			fields: []string{"timeout"}},
		{name: "h2 on http", spec: Spec{URL: target, H2: true}, fields: []string{"h2"}},
		{name: "h2 on h2c", spec: Spec{URL: "h2c://example.com/", H2: true}, fields: []string{"h2"}},
		{name: "h3 on http", spec: Spec{URL: target, H3: true}, fields: []string{"h3"}},
		{name: "h3 with h2", spec: Spec{URL: "https://example.com/", H2: true, H3: true}, fields: []string{"h3"}},
		{name: "abort_on 42", spec: Spec{URL: target, AbortOn: 42}, fields: []string{"abort_on"}},
		{name: "abort_on 600", spec: Spec{URL: target, AbortOn: 600}, fields: []string{"abort_on"}},
		{name: "abort_on -2", spec: Spec{URL: target, AbortOn: -2}, fields: []string{"abort_on"}},
		{name: "abort_on on tcp", spec: Spec{URL: "tcp://example.com:1", AbortOn: 503}, fields: []string{"abort_on"}},
		{name: "latency_header on tcp", spec: Spec{URL: "tcp://example.com:1", LatencyHeader: "X-Server-Time"}, fields: []string{"latency_header"}},
		{name: "latency_header not a token", spec: Spec{URL: target, LatencyHeader: "X Server"}, fields: []string{"latency_header"}},
	}
}

func grpcAndReportCases() []validateCase {
	const g = "grpc://example.com:8079"
	tooMany := map[string]string{}
	for i := range MaxLabels + 1 {
		tooMany[fmt.Sprint("k", i)] = "v"
	}
	return []validateCase{
		{name: "grpc block on http", spec: Spec{URL: target, GRPC: &GRPC{Mode: GRPCHealth}}, fields: []string{"grpc"}},
		{name: "grpc block missing", spec: Spec{URL: g}, post: func(s *Spec) { s.GRPC = nil }, fields: []string{"grpc"}},
		{name: "grpc mode unknown", spec: Spec{URL: g, GRPC: &GRPC{Mode: "reflect"}}, fields: []string{"grpc.mode"}},
		{name: "ping delay too long", spec: Spec{URL: g, GRPC: &GRPC{Mode: GRPCPing, PingDelay: dur(11 * time.Second)}},
			fields: []string{"grpc.ping_delay"}, msg: "grpc.ping_delay: must be between 0 and 10s"},
		{name: "ping delay negative", spec: Spec{URL: g, GRPC: &GRPC{Mode: GRPCPing, PingDelay: dur(-1)}},
			fields: []string{"grpc.ping_delay"}},
		{name: "ping delay in health mode", spec: Spec{URL: g, GRPC: &GRPC{PingDelay: dur(time.Second)}},
			fields: []string{"grpc.ping_delay"}},
		{name: "service in ping mode", spec: Spec{URL: g, GRPC: &GRPC{Mode: GRPCPing, Service: "x"}},
			fields: []string{"grpc.service"}},
		{name: "payload in health mode", spec: Spec{URL: g, Payload: "x"}, fields: []string{"payload"}},
		{name: "percentile zero", spec: Spec{URL: target, Percentiles: []float64{50, 0}},
			fields: []string{"percentiles[1]"}, msg: "percentiles[1]: must be greater than 0 and at most 100"},
		{name: "percentile over 100", spec: Spec{URL: target, Percentiles: []float64{100.1}},
			fields: []string{"percentiles[0]"}},
		{name: "percentile NaN", spec: Spec{URL: target, Percentiles: []float64{math.NaN()}},
			fields: []string{"percentiles[0]"}},
		{name: "too many percentiles", spec: Spec{URL: target, Percentiles: make([]float64, MaxPercentiles+1)},
			fields: []string{"percentiles"}},
		{name: "no percentiles", spec: Spec{URL: target}, post: func(s *Spec) { s.Percentiles = nil },
			fields: []string{"percentiles"}},
		{name: "too many labels", spec: Spec{URL: target, Labels: tooMany}, fields: []string{"labels"}},
		{name: "label key with space", spec: Spec{URL: target, Labels: map[string]string{"a b": "v"}},
			fields: []string{"labels"}},
		{name: "agent count negative", spec: Spec{URL: target, Agents: &Agents{Count: -1}}, fields: []string{"agents.count"}},
		{name: "agent count too high", spec: Spec{URL: target, Agents: &Agents{Count: MaxAgents + 1}}, fields: []string{"agents.count"}},
		{name: "agent selector key", spec: Spec{URL: target, Agents: &Agents{Selector: map[string]string{"a b": "c"}}},
			fields: []string{"agents.selector"}},
		{name: "label key empty", spec: Spec{URL: target, Labels: map[string]string{"": "v"}}, fields: []string{"labels"}},
		{name: "label key too long", spec: Spec{URL: target, Labels: map[string]string{strings.Repeat("k", 64): "v"}},
			fields: []string{"labels"}},
		{name: "label value too long", spec: Spec{URL: target, Labels: map[string]string{"team": strings.Repeat("v", 257)}},
			fields: []string{"labels.team"}},
	}
}

func grpcMethodCases() []validateCase {
	const g = "grpc://example.com:8079"
	method := func(m string) *GRPC { return &GRPC{Mode: GRPCMethod, Method: m} }
	return []validateCase{
		{name: "method missing", spec: Spec{URL: g, GRPC: &GRPC{Mode: GRPCMethod}},
			fields: []string{"grpc.method"}, msg: "grpc.method: is required in method mode"},
		{name: "method without service", spec: Spec{URL: g, GRPC: method("Check")}, fields: []string{"grpc.method"},
			msg: `grpc.method: "Check": want package.Service/Method, like grpc.health.v1.Health/Check`},
		{name: "method with dots", spec: Spec{URL: g, GRPC: method("grpc.health.v1.Health.Check")}, fields: []string{"grpc.method"}},
		{name: "method empty package part", spec: Spec{URL: g, GRPC: method("a..B/C")}, fields: []string{"grpc.method"}},
		{name: "method two slashes", spec: Spec{URL: g, GRPC: method("a.B/C/D")}, fields: []string{"grpc.method"}},
		{name: "method digit first", spec: Spec{URL: g, GRPC: method("a.B/9C")}, fields: []string{"grpc.method"}},
		{name: "method space", spec: Spec{URL: g, GRPC: method("a.B/C ")}, fields: []string{"grpc.method"}},
		{name: "method too long", spec: Spec{URL: g, GRPC: method("a." + strings.Repeat("B", MaxTextLength) + "/C")},
			fields: []string{"grpc.method"}},
		{name: "method not utf-8", spec: Spec{URL: g, GRPC: method("a.\xff/C")}, fields: []string{"grpc.method", "grpc.method"}},
		{name: "method in ping mode", spec: Spec{URL: g, GRPC: &GRPC{Mode: GRPCPing, Method: "a.B/C"}},
			fields: []string{"grpc.method"}, msg: "grpc.method: only applies to method mode"},
		{name: "payload not JSON", spec: Spec{URL: g, Payload: "{seq: 1}", GRPC: method("a.B/C")}, fields: []string{"payload"}},
		{name: "payload JSON but not an object", spec: Spec{URL: g, Payload: "[1]", GRPC: method("a.B/C")}, fields: []string{"payload"}},
		{name: "service in method mode", spec: Spec{URL: g, GRPC: &GRPC{Mode: GRPCMethod, Method: "a.B/C", Service: "x"}},
			fields: []string{"grpc.service"}},
		{name: "ping delay in method mode", spec: Spec{URL: g, GRPC: &GRPC{Mode: GRPCMethod, Method: "a.B/C", PingDelay: dur(time.Second)}},
			fields: []string{"grpc.ping_delay"}},
		{name: "streams negative", spec: Spec{URL: g, GRPC: &GRPC{Streams: -1}}, fields: []string{"grpc.streams"},
			msg: "grpc.streams: must be from 1 to 1000"},
		{name: "streams zero after normalize", spec: Spec{URL: g}, post: func(s *Spec) { s.GRPC.Streams = 0 },
			fields: []string{"grpc.streams"}},
		{name: "streams too many", spec: Spec{URL: g, GRPC: &GRPC{Streams: MaxStreams + 1}}, fields: []string{"grpc.streams"}},
		{name: "connections times streams", spec: Spec{URL: g, Connections: 101, GRPC: &GRPC{Streams: 100}},
			fields: []string{"grpc.streams"}, msg: "grpc.streams: connections × streams must be at most 10000"},
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	t.Parallel()
	s := normalized(Spec{
		URL:         target,
		QPS:         2e6,
		Ramp:        &Ramp{To: 0, Over: dur(time.Second)},
		Headers:     []string{"A: b", "broken"},
		Percentiles: []float64{50, 0},
		AbortOn:     7,
	})
	s.Connections = 0
	err := s.Validate()
	want := []string{"qps", "connections", "ramp.to", "qps", "headers[1]", "abort_on", "percentiles[1]"}
	if got := errorFields(t, err); !sameFields(got, want) {
		t.Fatalf("fields = %q, want %q", got, want)
	}
	for _, part := range []string{"qps: must be at most 1000000", "ramp.to: must be greater than 0", `headers[1]: want "Name: value"`} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not mention %q", err, part)
		}
	}
}

func TestValidationErrorAs(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("create run: %w", Spec{}.Validate())
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("errors.As(%v) failed", err)
	}
	if len(ve.Errors) == 0 || ve.Errors[0] != (FieldError{Field: "url", Message: "is required"}) {
		t.Errorf("first problem = %+v, want url: is required", ve.Errors)
	}
	if !strings.HasPrefix(ve.Error(), "invalid spec: url: is required; ") {
		t.Errorf("Error() = %q", ve.Error())
	}
}

func templateCases() []validateCase {
	return []validateCase{
		{name: "url template bad bound", spec: Spec{URL: "http://example.com/{rand:0}"}, fields: []string{"url"},
			msg: `url: bad template: {rand:0} at byte 1: argument "0" must be a whole number from 1 to 9223372036854775807`},
		{name: "url template unclosed", spec: Spec{URL: "http://example.com/{seq:5"}, fields: []string{"url"}},
		{name: "goader run too long", spec: Spec{URL: "http://example.com/" + strings.Repeat("X", 20)}, fields: []string{"url"}},
		{name: "payload template bad", spec: Spec{URL: target, Payload: "{alpha}"}, fields: []string{"payload"},
			msg: "payload: bad template: {alpha} at byte 0: needs a length, like {alpha:8}"},
		{name: "url template on h2c", spec: Spec{URL: "h2c://example.com/{seq}"}, fields: []string{"url"}},
		{name: "url template following redirects", spec: Spec{URL: "http://example.com/{seq}", FollowRedirects: true}, fields: []string{"url"}},
		{name: "request mix following redirects", spec: Spec{URL: "http://example.com/", FollowRedirects: true,
			Requests: []Request{{URL: "http://example.com/a", Weight: 1}}}, fields: []string{"requests"}},
		{name: "url list other host", spec: Spec{URLs: []string{"http://example.com/a", "http://other.com/b"}}, fields: []string{"urls[1]"},
			msg: "urls[1]: must have the scheme and host of url (http://example.com): one list goes to one target"},
		{name: "url list bad template", spec: Spec{URLs: []string{"http://example.com/a", "http://example.com/{seq:99}"}}, fields: []string{"urls[1]"}},
		{name: "url list bad order", spec: Spec{URLs: []string{"http://example.com/a"}, URLOrder: "shuffled"}, fields: []string{"url_order"}},
		{name: "url order without list", spec: Spec{URL: target, URLOrder: URLRandom}, fields: []string{"url_order"}},
		{name: "url list on tcp", spec: Spec{URLs: []string{"tcp://example.com:1"}}, fields: []string{"urls"}},
		{name: "mix other host", spec: Spec{URL: target, Requests: []Request{{URL: "http://other.com/"}}}, fields: []string{"requests[0].url"}},
		{name: "mix weight and qps", spec: Spec{URL: target, Requests: []Request{{URL: target, QPS: 1, Weight: 1}, {URL: target, QPS: 1}}},
			fields: []string{"requests[0].weight"}},
		{name: "mix qps for some", spec: Spec{URL: target, Requests: []Request{{URL: target, QPS: 1}, {URL: target}}}, fields: []string{"requests"}},
		{name: "mix qps not the sum", spec: Spec{URL: target, QPS: 7, Requests: []Request{{URL: target, QPS: 1}, {URL: target, QPS: 2}}},
			fields: []string{"qps"}, msg: "qps: must be 0 or the sum of requests[].qps (3)"},
		{name: "mix body and size", spec: Spec{URL: target, Requests: []Request{{URL: target, Body: "x", BodySize: &BodySize{Max: 5}}}},
			fields: []string{"requests[0]"}},
		{name: "mix bad size", spec: Spec{URL: target, Requests: []Request{{URL: target, BodySize: &BodySize{Min: 5, Max: 2}}}},
			fields: []string{"requests[0].body_size"}},
		{name: "mix bad header and template", spec: Spec{URL: target, Requests: []Request{{URL: target + "{rand}", Headers: []string{"nocolon"}}}},
			fields: []string{"requests[0].url", "requests[0].headers[0]"}},
		{name: "mix with a run payload", spec: Spec{URL: target, Payload: "x", Requests: []Request{{URL: target}}}, fields: []string{"requests"}},
		{name: "mix too long", spec: Spec{URL: target, Requests: make([]Request, MaxRequests+1)}, fields: []string{"requests"}},
		{name: "payload template on h2", spec: Spec{URL: "https://example.com/", H2: true, Payload: "{uuid}"}, fields: []string{"payload"}},
	}
}
