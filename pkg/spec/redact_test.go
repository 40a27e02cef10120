package spec

import (
	"reflect"
	"testing"
)

func TestRedacted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		url     string
		header  string
		wantURL string
		wantHdr string
	}{
		{name: "authorization", header: "Authorization: Bearer abc", wantHdr: "Authorization: REDACTED"},
		{name: "lower case", header: "authorization:Basic eDp5", wantHdr: "authorization: REDACTED"},
		{name: "proxy authorization", header: "Proxy-Authorization: Basic x", wantHdr: "Proxy-Authorization: REDACTED"},
		{name: "cookie", header: "Cookie: sid=1", wantHdr: "Cookie: REDACTED"},
		{name: "set-cookie", header: "Set-Cookie: sid=1", wantHdr: "Set-Cookie: REDACTED"},
		{name: "x-api-key", header: "X-Api-Key: k", wantHdr: "X-Api-Key: REDACTED"},
		{name: "token", header: "X-Auth-TOKEN: t", wantHdr: "X-Auth-TOKEN: REDACTED"},
		{name: "secret", header: "X-Client-Secret: s", wantHdr: "X-Client-Secret: REDACTED"},
		{name: "password", header: "X-Password: p", wantHdr: "X-Password: REDACTED"},
		{name: "key", header: "Private-Key: p", wantHdr: "Private-Key: REDACTED"},
		{name: "plain header kept", header: "Accept: */*", wantHdr: "Accept: */*"},
		{name: "request id kept", header: "X-Request-Id: 1", wantHdr: "X-Request-Id: 1"},
		{name: "malformed secret", header: "Authorization Bearer abc", wantHdr: "REDACTED"},
		{name: "malformed plain kept", header: "whatever", wantHdr: "whatever"},
		{name: "url password", url: "http://bob:hunter2@example.com/x", wantURL: "http://REDACTED:REDACTED@example.com/x"},
		{name: "url password with at", url: "https://bob:p@ss@example.com", wantURL: "https://REDACTED:REDACTED@example.com"},
		{name: "url empty password", url: "http://bob:@example.com/", wantURL: "http://REDACTED:REDACTED@example.com/"},
		{name: "url user only", url: "http://bob@example.com/", wantURL: "http://REDACTED@example.com/"},
		{name: "url at in path kept", url: "http://example.com/a:b@c", wantURL: "http://example.com/a:b@c"},
		{name: "url secret query", url: "http://example.com/p?api_key=1&x=2&access_token=3#f",
			wantURL: "http://example.com/p?api_key=REDACTED&x=2&access_token=REDACTED#f"},
		{name: "url escaped query name", url: "http://example.com/?pass%77ord=1", wantURL: "http://example.com/?pass%77ord=REDACTED"},
		{name: "url invalid still redacted", url: "http://u:pw@exa mple.com/", wantURL: "http://REDACTED:REDACTED@exa mple.com/"},
		{name: "url plain kept", url: "grpc://echo:8079", wantURL: "grpc://echo:8079"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			orig := Spec{URL: tt.url, Labels: map[string]string{"a": "b"}, Ramp: &Ramp{To: 1}}
			if tt.header != "" {
				orig.Headers = []string{tt.header}
			}
			before := orig.Clone()
			got := orig.Redacted()
			if !reflect.DeepEqual(orig, before) {
				t.Fatalf("Redacted changed the original: %+v", orig)
			}
			if tt.header != "" && got.Headers[0] != tt.wantHdr {
				t.Errorf("header = %q, want %q", got.Headers[0], tt.wantHdr)
			}
			if tt.url != "" && got.URL != tt.wantURL {
				t.Errorf("url = %q, want %q", got.URL, tt.wantURL)
			}
			if twice := got.Redacted(); !reflect.DeepEqual(twice, got) {
				t.Errorf("Redacted is not idempotent: %+v then %+v", got, twice)
			}
		})
	}
}

func TestRedactedIsDeepCopy(t *testing.T) {
	t.Parallel()
	orig := normalized(Spec{URL: "grpc://echo:8079", Headers: []string{"A: b"}, Labels: map[string]string{"a": "b"},
		Ramp: &Ramp{To: 1}})
	before := orig.Clone()
	got := orig.Redacted()
	got.Headers[0] = "changed"
	got.Labels["a"] = "changed"
	got.Percentiles[0] = 1
	got.Ramp.To = 2
	got.GRPC.Service = "changed"
	if !reflect.DeepEqual(orig, before) {
		t.Errorf("changing the redacted copy changed the original:\n got %+v\nwant %+v", orig, before)
	}
}

func TestRedactedStaysValid(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `{"url": "https://u:p@example.com/?token=abc", "headers": ["Authorization: Bearer x"]}`)
	if err := s.Redacted().Validate(); err != nil {
		t.Errorf("redacted spec is invalid: %v", err)
	}
}
