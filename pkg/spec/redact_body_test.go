package spec

import (
	"strings"
	"testing"
)

func TestRedactorBodyPattern(t *testing.T) {
	r, err := NewRedactor([]string{"x-api-key"}).WithBodyPattern(`"(?:password|otp)"\s*:\s*"([^"]*)"`)
	if err != nil {
		t.Fatal(err)
	}
	s := Spec{
		URL:     "https://api.test/login",
		Payload: `{"user":"ann","password":"hunter2","otp": "123456"}`,
		Requests: []Request{
			{URL: "https://api.test/a", Body: `{"password":"pw-2"}`},
			{URL: "https://api.test/b", Body: `no secret here`},
		},
		Headers: []string{"X-Api-Key: k-1"},
	}
	got := r.Spec(s)
	if want := `{"user":"ann","password":"REDACTED","otp": "REDACTED"}`; got.Payload != want {
		t.Errorf("payload = %s, want %s", got.Payload, want)
	}
	if got.Requests[0].Body != `{"password":"REDACTED"}` || got.Requests[1].Body != "no secret here" {
		t.Errorf("entry bodies = %q, %q", got.Requests[0].Body, got.Requests[1].Body)
	}
	if got.Headers[0] != "X-Api-Key: REDACTED" {
		t.Errorf("header = %q: the names still count", got.Headers[0])
	}
	if !strings.Contains(s.Payload, "hunter2") {
		t.Error("Spec changed its argument")
	}

	// Without a group, the whole match goes.
	whole, err := Redactor{}.WithBodyPattern(`sk_live_[A-Za-z0-9]+`)
	if err != nil {
		t.Fatal(err)
	}
	if got := whole.Spec(Spec{Payload: "key=sk_live_abc123&x=1 sk_live_Z"}).Payload; got != "key=REDACTED&x=1 REDACTED" {
		t.Errorf("payload = %q", got)
	}
	if whole == r || whole.BodyPattern() != `sk_live_[A-Za-z0-9]+` {
		t.Error("redactors with different patterns compare equal, or the pattern is lost")
	}
}

func TestRedactorBodyPatternRefusesBadPatterns(t *testing.T) {
	for _, p := range []string{`(`, `a*`, `x|`} {
		if _, err := (Redactor{}).WithBodyPattern(p); err == nil {
			t.Errorf("WithBodyPattern(%q) accepted", p)
		}
	}
	if r, err := (Redactor{}).WithBodyPattern(""); err != nil || r.BodyPattern() != "" {
		t.Errorf("empty pattern: %v %q", err, r.BodyPattern())
	}
}
