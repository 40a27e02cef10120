package fortiorest

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// wantDomainError fails unless err is nil or an apperr.Error of a client
// mistake: the HTTP layer answers those with 400/422 naming the field,
// never with a 500.
func wantDomainError(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var e *apperr.Error
	if !errors.As(err, &e) || (e.Code != apperr.Invalid && e.Code != apperr.BadRequest) {
		t.Fatalf("%s: %v (%T), want an Invalid or BadRequest apperr.Error", what, err, err)
	}
	if e.Code == apperr.Invalid && len(e.Fields) == 0 {
		t.Fatalf("%s: Invalid without a field: %v", what, err)
	}
}

// FuzzQueryParams reads any query string as Fortio REST parameters: it
// never panics, every refusal is a client error naming a field, and an
// accepted spec has a URL, connections and a rate or a count.
func FuzzQueryParams(f *testing.F) {
	for _, q := range []string{
		"url=http://target.test/&qps=50&n=100&c=2&p=50,99&H=X-A:%201",
		"url=http://target.test/&qps=-1&t=10s&async=on&labels=a%20b",
		"url=grpc://target.test:8079&ping=true&grpc-ping-delay=1s",
		"url=tcp://target.test:8078&payload=abc&payload-size=10",
		"url=http://target.test/&qps=abc", "c=x", "t=42", "qps=1e309", "n=-5", "p=101", "H=nocolon",
		"url=%zz", "url=http://target.test/&timeout=-1s&size=1:2",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, _ := url.ParseQuery(raw) // what parses: as gin's c.Request.URL.Query()
		p, err := ReadParams(q, nil)
		wantDomainError(t, "ReadParams", err)
		if err != nil {
			return
		}
		for k, v := range q {
			if got := p.Get(k); got != v[0] {
				t.Fatalf("Get(%q) = %q, want the query's first value %q", k, got, v[0])
			}
		}
		s, err := p.Spec()
		wantDomainError(t, "Spec", err)
		if err != nil {
			return
		}
		if s.URL == "" || s.Connections < 1 {
			t.Fatalf("accepted spec without a URL or connections: %+v", s)
		}
	})
}

// FuzzJSONPathBody reads any JSON body at any jsonPath: it never panics,
// refusals are client errors, and a body parameter is read only when the
// query string does not set it.
func FuzzJSONPathBody(f *testing.F) {
	f.Add(".metadata", []byte(`{"metadata":{"url":"http://target.test/","qps":"5","n":"10"}}`))
	f.Add("a.b", []byte(`{"a":{"b":{"url":"http://target.test/","c":"2"}}}`))
	f.Add("", []byte(`{"url":"http://target.test/","qps":5}`))
	f.Add(".metadata", []byte(`{"metadata":[1,2]}`))
	f.Add(".x..y.", []byte(`{"x":{"y":{}}}`))
	f.Add(".spec", []byte(`{"metadata":{}}`))
	f.Add("", []byte(`[1]`))
	f.Add("", []byte(`{"url":"http://target.test/","H":"X-A: 1"}`))
	f.Fuzz(func(t *testing.T, path string, body []byte) {
		q := url.Values{"jsonPath": {path}}
		p, err := ReadParams(q, body)
		wantDomainError(t, "ReadParams", err)
		if err != nil {
			return
		}
		if got := p.Get("jsonPath"); got != path {
			t.Fatalf("Get(jsonPath) = %q, want the query's %q", got, path)
		}
		if strings.TrimSpace(string(body)) == "" && p.Get("url") != "" {
			t.Fatal("an empty body gave a url")
		}
		if _, err := p.Spec(); err != nil {
			wantDomainError(t, "Spec", err)
		}
	})
}
