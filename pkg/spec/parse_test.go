package spec

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fullSpec is a JSON document that sets every field.
const fullSpec = `{
	"url": "https://user:pw@example.com:8443/echo?status=200",
	"qps": 200,
	"connections": 16,
	"duration": "1m30s",
	"pacing": "open",
	"jitter": true,
	"uniform": true,
	"ramp": {"from": 10, "to": 200, "over": 30},
	"method": "PUT",
	"headers": ["Authorization: Bearer abc", "X-Trace: 1"],
	"payload": "{\"a\":1}",
	"content_type": "application/json",
	"timeout": "1.5s",
	"insecure": true,
	"h2": true,
	"percentiles": [50, 99.99],
	"labels": {"team": "core", "env": "ci"},
	"abort_on": 503
}`

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Spec
	}{
		{
			name: "minimal gets defaults",
			in:   `{"url": "http://example.com/"}`,
			want: normalized(Spec{URL: target}),
		},
		{
			name: "every field",
			in:   fullSpec,
			want: Spec{
				URL: "https://user:pw@example.com:8443/echo?status=200", QPS: 200, Connections: 16,
				Duration: dur(90 * time.Second), Pacing: PacingOpen, Jitter: true, Uniform: true,
				Ramp: &Ramp{From: 10, To: 200, Over: dur(30 * time.Second)}, Method: "PUT",
				Headers: []string{"Authorization: Bearer abc", "X-Trace: 1"}, Payload: `{"a":1}`,
				ContentType: "application/json", Timeout: dur(1500 * time.Millisecond), Insecure: true, H2: true,
				Percentiles: []float64{50, 99.99}, Labels: map[string]string{"team": "core", "env": "ci"}, AbortOn: 503,
			},
		},
		{
			name: "grpc ping",
			in:   `{"url": "grpc://echo:8079", "count": 1000, "grpc": {"mode": "ping", "ping_delay": "10ms"}, "payload": "hi"}`,
			want: normalized(Spec{URL: "grpc://echo:8079", Count: 1000, Payload: "hi",
				GRPC: &GRPC{Mode: GRPCPing, PingDelay: dur(10 * time.Millisecond)}}),
		},
		{
			name: "grpc method",
			in: `{"url": "grpc://echo:8079", "count": 10, "grpc": {"mode": "method", "method": "fgrpc.PingServer/Ping",
				"streams": 4}, "payload": "{\"seq\": 1}"}`,
			want: normalized(Spec{URL: "grpc://echo:8079", Count: 10, Payload: `{"seq": 1}`,
				GRPC: &GRPC{Mode: GRPCMethod, Method: "fgrpc.PingServer/Ping", Streams: 4}}),
		},
		{
			name: "nulls are absent",
			in:   `{"url": "udp://echo:8078", "ramp": null, "grpc": null, "timeout": null, "labels": null}`,
			want: normalized(Spec{URL: "udp://echo:8078"}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := mustParse(t, tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseFieldErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		fields []string
		msg    string // when set, Error() must contain it
	}{
		{"unknown field", `{"url": "http://x/", "bogus": 1}`, []string{"bogus"}, "bogus: unknown field"},
		{"unknown nested field", `{"url": "http://x/", "ramp": {"to": 5, "over": "1s", "steps": 3}}`,
			[]string{"ramp.steps"}, "ramp.steps: unknown field"},
		{"unknown grpc field", `{"url": "grpc://x:1", "grpc": {"methods": "x"}}`, []string{"grpc.methods"}, ""},
		{"names are case sensitive", `{"url": "http://x/", "QPS": 5}`, []string{"QPS"}, ""},
		{"every unknown field", `{"a": 1, "b": 2, "url": "http://x/"}`, []string{"a", "b"}, ""},
		{"wrong types", `{"url": 5, "qps": "fast", "connections": 1.5, "headers": "A: b", "insecure": "yes",
			"labels": {"a": 1}, "percentiles": [50, "x"], "ramp": 5}`,
			[]string{"connections", "headers", "insecure", "labels", "percentiles", "qps", "ramp", "url"}, ""},
		{"bad duration", `{"url": "http://x/", "duration": "soon"}`, []string{"duration"},
			`duration: must be a duration like "1m30s" or a number of seconds, not "soon"`},
		{"bad nested duration", `{"url": "http://x/", "ramp": {"to": 1, "over": true}}`, []string{"ramp.over"}, ""},
		{"bad nested type", `{"url": "grpc://x:1", "grpc": {"mode": 5}}`, []string{"grpc.mode"}, "grpc.mode: must be a string"},
		{"integer overflow", `{"url": "http://x/", "count": 1e30}`, []string{"count"}, "count: must be an integer"},
		{"validation after decode", `{"url": "", "qps": -1}`, []string{"url", "qps"}, "qps: must be at least 0"},
		{"duplicate key seen by decoder", `{"url": "http://x/", "ramp": {"bogus": 1}, "ramp": null}`,
			[]string{"bogus"}, "bogus: unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.in))
			if got := errorFields(t, err); !sameFields(got, tt.fields) {
				t.Fatalf("fields = %q, want %q (error: %v)", got, tt.fields, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
		})
	}
}

func TestParseDocumentErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		tooLarge bool
	}{
		{"empty", ``, false},
		{"syntax", `{"url": `, false},
		{"trailing data", `{"url": "http://x/"} {}`, false},
		{"array", `[]`, false},
		{"string", `"http://x/"`, false},
		{"null", `null`, false},
		{"too large", `{"url": "http://x/", "payload": "` + strings.Repeat("x", MaxSpecBytes) + `"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			var ve *ValidationError
			if errors.As(err, &ve) {
				t.Errorf("error %v is a *ValidationError; want a document error", err)
			}
			if got := errors.Is(err, ErrTooLarge); got != tt.tooLarge {
				t.Errorf("errors.Is(%v, ErrTooLarge) = %v, want %v", err, got, tt.tooLarge)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
	}{
		{"minimal", `{"url": "http://example.com/"}`},
		{"every field", fullSpec},
		{"count", `{"url": "tcp://echo:8078", "count": 10, "payload": "ping", "labels": {}}`},
		{"until stopped", `{"url": "h2c://echo:8080/", "until_stopped": true, "qps": 0.5, "headers": []}`},
		{"fortio", `{"url": "http://e/", "pacing": "fortio", "no_catchup": true, "qps": 1e-3, "duration": 0.000000001}`},
		{"grpc", `{"url": "grpcs://echo:443", "grpc": {"service": "x"}, "percentiles": [1e-5]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			first := mustParse(t, tt.in)
			b, err := json.Marshal(first)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			second := mustParse(t, string(b))
			if !reflect.DeepEqual(first, second) {
				t.Errorf("round trip changed the spec:\nfirst  %+v\nsecond %+v\njson %s", first, second, b)
			}
		})
	}
}

func TestMarshalShape(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(mustParse(t, `{"url": "http://e/", "duration": 90, "count": 0}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"url":"http://e/","qps":0,"connections":8,"duration":"1m30s","pacing":"closed","method":"GET",` +
		`"timeout":"3s","percentiles":[50,75,90,99,99.9]}`
	if string(b) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", b, want)
	}
}
