package spec

import (
	"errors"
	"testing"
)

const runID = "0190b1c2-0000-7000-8000-000000000002"

func TestValidateWrittenURLs(t *testing.T) {
	t.Parallel()
	tests := []validateCase{
		{name: "record post", spec: Spec{URL: target + "post/{seq}", Method: "POST", RecordWrittenURLs: true}},
		{name: "record mix", spec: Spec{URL: target, RecordWrittenURLs: true, Requests: []Request{{URL: target + "w/{seq}", Method: "PUT"}}}},
		{name: "from run", spec: Spec{URL: target, URLsFromRun: runID}},
		{name: "from run random", spec: Spec{URL: target, URLsFromRun: runID, URLOrder: URLRandom}},
		{name: "record grpc", spec: Spec{URL: "grpc://example.com:1", RecordWrittenURLs: true}, fields: []string{"record_written_urls"},
			msg: "record_written_urls: only applies to http and https URLs"},
		{name: "record tcp", spec: Spec{URL: "tcp://example.com:1", RecordWrittenURLs: true}, fields: []string{"record_written_urls"}},
		{name: "record h2", spec: Spec{URL: "https://example.com/", H2: true, RecordWrittenURLs: true}, fields: []string{"record_written_urls"},
			msg: "record_written_urls: is supported on HTTP/1.1 targets only, not with h2, h2c, h3 or follow_redirects"},
		{name: "record h2c", spec: Spec{URL: "h2c://example.com/", RecordWrittenURLs: true}, fields: []string{"record_written_urls"}},
		{name: "record follow", spec: Spec{URL: target, FollowRedirects: true, RecordWrittenURLs: true}, fields: []string{"record_written_urls"}},
		{name: "from run not a uuid", spec: Spec{URL: target, URLsFromRun: "last"}, fields: []string{"urls_from_run"},
			msg: "urls_from_run: must be a run id (a UUID)"},
		{name: "from run resolved", spec: Spec{URL: target, URLsFromRun: runID, URLs: []string{target + "user/XX", target + "{seq:x}"}}},
		{name: "from run on another host", spec: Spec{URL: target, URLsFromRun: runID, URLs: []string{"http://other/a"}}, fields: []string{"urls[0]"}},
		{name: "from run with requests", spec: Spec{URL: target, URLsFromRun: runID, Requests: []Request{{URL: target}}},
			fields: []string{"urls_from_run"}},
		{name: "from run udp", spec: Spec{URL: "udp://example.com:1", URLsFromRun: runID}, fields: []string{"urls_from_run"}},
		{name: "from run h3", spec: Spec{URL: "https://example.com/", H3: true, URLsFromRun: runID}, fields: []string{"urls_from_run"}},
		{name: "order without list", spec: Spec{URL: target, URLOrder: URLRandom}, fields: []string{"url_order"}},
		{name: "bad order from run", spec: Spec{URL: target, URLsFromRun: runID, URLOrder: "backwards"}, fields: []string{"url_order"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := normalized(tt.spec).Validate()
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

func TestWrittenURLsJSON(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `{"url": "http://e/post/{seq}", "method": "POST", "record_written_urls": true}`)
	if !s.RecordWrittenURLs || s.URLsFromRun != "" {
		t.Fatalf("parsed %+v", s)
	}
	r := mustParse(t, `{"url": "http://e/", "urls_from_run": "`+runID+`"}`)
	if r.URLsFromRun != runID || r.RecordWrittenURLs || r.Clone().URLsFromRun != runID {
		t.Fatalf("parsed %+v", r)
	}
}

func TestIsWriteMethod(t *testing.T) {
	t.Parallel()
	for m, want := range map[string]bool{
		"GET": false, "HEAD": false, "OPTIONS": false, "": false,
		"POST": true, "PUT": true, "PATCH": true, "DELETE": true, "M-SEARCH": true,
	} {
		if got := IsWriteMethod(m); got != want {
			t.Errorf("IsWriteMethod(%q) = %v, want %v", m, got, want)
		}
	}
}

func TestOriginAndRebase(t *testing.T) {
	t.Parallel()
	tests := []struct{ raw, origin string }{
		{"http://example.com/post/1", "http://example.com"},
		{"https://user:p%40ss@example.com:8443/x?y=1", "https://example.com:8443"},
		{"http://u@[::1]:80", "http://[::1]:80"},
		{"h2c://host/", "h2c://host"},
	}
	for _, tt := range tests {
		if got := Origin(tt.raw); got != tt.origin {
			t.Errorf("Origin(%q) = %q, want %q", tt.raw, got, tt.origin)
		}
	}
	if got := (Spec{URL: "h2c://u:pw@host:81/a"}).URLOrigin(); got != "http://host:81" {
		t.Errorf("URLOrigin of h2c = %q, want http://host:81", got)
	}
	if got := Rebase("http://u:pw@replica:9/ignored", "http://primary:8/post/17?v=2#f"); got != "http://u:pw@replica:9/post/17?v=2" {
		t.Errorf("Rebase = %q", got)
	}
	if got := Rebase("http://h", "http://primary:8"); got != "http://h/" {
		t.Errorf("Rebase without a path = %q, want http://h/", got)
	}
}

// TestRequestTargetsFromRunAreLiteral sends recorded URLs as they are: a
// Goader-looking word or a brace is not a placeholder there.
func TestRequestTargetsFromRunAreLiteral(t *testing.T) {
	t.Parallel()
	s := Spec{URL: target, URLs: []string{target + "user/XX", target + "a/{seq:x}?b=NN"}}
	tpl, err := s.RequestTargets()
	if err == nil {
		t.Fatalf("a templated list with a malformed {seq parsed: %v", tpl)
	}
	s.URLsFromRun = runID
	tpl, err = s.RequestTargets()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"/user/XX", "/a/{seq:x}?b=NN"} {
		if tpl[i].Dynamic() || string(tpl[i].Append(nil, 7, nil)) != want {
			t.Errorf("entry %d renders %q (dynamic %v), want %q as it is", i, tpl[i].Append(nil, 7, nil), tpl[i].Dynamic(), want)
		}
	}
}
