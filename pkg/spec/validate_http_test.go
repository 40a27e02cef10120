package spec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestValidateAcceptsHTTPOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec Spec
	}{
		{"http10", Spec{URL: target, HTTP10: true}},
		{"http10 over tls", Spec{URL: "https://example.com/", HTTP10: true}},
		{"compression h1", Spec{URL: target, Compression: true}},
		{"compression h2c", Spec{URL: "h2c://example.com/", Compression: true}},
		{"compression h3", Spec{URL: "https://example.com/", H3: true, Compression: true}},
		{"unix socket", Spec{URL: target, UnixSocket: "/run/echo.sock"}},
		{"unix socket h2", Spec{URL: "https://example.com/", H2: true, UnixSocket: "/tmp/a b/echo.sock"}},
		{"max requests per connection", Spec{URL: target, MaxRequestsPerConnection: 3}},
		{"max requests with http10", Spec{URL: target, MaxRequestsPerConnection: MaxCount, HTTP10: true}},
		{"prefetch any protocol", Spec{URL: "tcp://example.com:8078", Prefetch: true}},
		{"burst", Spec{URL: target, QPS: 100, Burst: 10}},
		{"burst with ramp", Spec{URL: target, Burst: MaxBurst, Ramp: &Ramp{To: 100, Over: dur(1e9)}}},
		{"burst 1 closed", Spec{URL: target, Burst: 1}},
		{"follow redirects", Spec{URL: target, FollowRedirects: true, Compression: true}},
		{"follow redirects h2", Spec{URL: "https://example.com/", H2: true, FollowRedirects: true}},
		{"content type makes a post", Spec{URL: target, ContentType: "application/json"}},
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

func TestValidateRejectsHTTPOptions(t *testing.T) {
	t.Parallel()
	tests := []validateCase{
		{name: "http10 tcp", spec: Spec{URL: "tcp://example.com:1", HTTP10: true}, fields: []string{"http10"},
			msg: "http10: only applies to http, https and h2c URLs"},
		{name: "http10 h2", spec: Spec{URL: "https://example.com/", H2: true, HTTP10: true}, fields: []string{"http10"}},
		{name: "http10 h3", spec: Spec{URL: "https://example.com/", H3: true, HTTP10: true}, fields: []string{"http10"}},
		{name: "http10 h2c", spec: Spec{URL: "h2c://example.com/", HTTP10: true}, fields: []string{"http10"}},
		{name: "http10 follow", spec: Spec{URL: target, HTTP10: true, FollowRedirects: true}, fields: []string{"http10"},
			msg: "http10: cannot be combined with follow_redirects"},
		{name: "compression grpc", spec: Spec{URL: "grpc://example.com:1", Compression: true}, fields: []string{"compression"}},
		{name: "follow udp", spec: Spec{URL: "udp://example.com:1", FollowRedirects: true}, fields: []string{"follow_redirects"}},
		{name: "unix socket tcp", spec: Spec{URL: "tcp://example.com:1", UnixSocket: "/a.sock"}, fields: []string{"unix_socket"}},
		{name: "unix socket h3", spec: Spec{URL: "https://example.com/", H3: true, UnixSocket: "/a.sock"},
			fields: []string{"unix_socket"}},
		{name: "unix socket relative", spec: Spec{URL: target, UnixSocket: "run/a.sock"}, fields: []string{"unix_socket"},
			msg: "unix_socket: must be an absolute path, like /run/app.sock"},
		{name: "unix socket dotdot", spec: Spec{URL: target, UnixSocket: "/run/../etc/a.sock"}, fields: []string{"unix_socket"}},
		{name: "unix socket trailing slash", spec: Spec{URL: target, UnixSocket: "/run/"}, fields: []string{"unix_socket"}},
		{name: "unix socket NUL", spec: Spec{URL: target, UnixSocket: "/run/a\x00"}, fields: []string{"unix_socket"}},
		{name: "unix socket too long", spec: Spec{URL: target, UnixSocket: "/" + strings.Repeat("a", MaxUnixSocketLength)},
			fields: []string{"unix_socket"}, msg: "unix_socket: must be at most 103 bytes"},
		{name: "unix socket with bad url", spec: Spec{URL: "ftp://x/", UnixSocket: "rel"}, fields: []string{"url", "unix_socket"}},
		{name: "max requests negative", spec: Spec{URL: target, MaxRequestsPerConnection: -1},
			fields: []string{"max_requests_per_connection"}},
		{name: "max requests h2c", spec: Spec{URL: "h2c://example.com/", MaxRequestsPerConnection: 2},
			fields: []string{"max_requests_per_connection"}},
		{name: "max requests grpc", spec: Spec{URL: "grpc://example.com:1", MaxRequestsPerConnection: 2},
			fields: []string{"max_requests_per_connection"}},
		{name: "max requests follow", spec: Spec{URL: target, MaxRequestsPerConnection: 2, FollowRedirects: true},
			fields: []string{"max_requests_per_connection"}},
		{name: "burst negative", spec: Spec{URL: target, QPS: 10, Burst: -1}, fields: []string{"burst"}},
		{name: "burst too big", spec: Spec{URL: target, QPS: 10, Burst: MaxBurst + 1}, fields: []string{"burst"}},
		{name: "burst closed", spec: Spec{URL: target, Burst: 4}, fields: []string{"burst"},
			msg: "burst: requires open pacing (qps greater than 0)"},
		{name: "burst fortio", spec: Spec{URL: target, QPS: 10, Pacing: PacingFortio, Burst: 4}, fields: []string{"burst"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := normalized(tt.spec)
			err := s.Validate()
			if got := errorFields(t, err); !sameFields(got, tt.fields) {
				t.Fatalf("fields = %q, want %q (error: %v)", got, tt.fields, err)
			}
			var ve *ValidationError
			if tt.msg != "" && (!errors.As(err, &ve) || ve.Errors[0].Error() != tt.msg) {
				t.Errorf("error = %v, want first %q", err, tt.msg)
			}
		})
	}
}

func TestHTTPOptionsJSON(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `{"url": "http://e/", "qps": 50, "http10": true, "compression": true,
		"unix_socket": "/run/e.sock", "max_requests_per_connection": 7, "prefetch": true, "burst": 5}`)
	if !s.HTTP10 || !s.Compression || s.UnixSocket != "/run/e.sock" || s.MaxRequestsPerConnection != 7 ||
		!s.Prefetch || s.Burst != 5 || s.FollowRedirects {
		t.Fatalf("parsed %+v", s)
	}
	f := mustParse(t, `{"url": "http://e/", "follow_redirects": true, "content_type": "text/plain"}`)
	if !f.FollowRedirects || f.Method != "POST" {
		t.Fatalf("follow_redirects %v, method %q; want true, POST", f.FollowRedirects, f.Method)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"http10":true`, `"compression":true`, `"unix_socket":"/run/e.sock"`,
		`"max_requests_per_connection":7`, `"prefetch":true`, `"burst":5`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
}
