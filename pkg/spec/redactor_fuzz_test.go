package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzRedactor redacts a header and a URL with a list of extra names (the
// text of BARRAGE_SECRET_HEADERS): it never panics, redacting twice is
// redacting once, the built-in redaction first changes nothing, and a
// header whose name is secret keeps no value.
func FuzzRedactor(f *testing.F) {
	f.Add("X-Tenant-Sig, sig", "X-Tenant-Sig: s3cr3t", "http://u:p@h/?sig=1&x=2#f")
	f.Add("", "Authorization: Bearer x", "https://h/?access_token=t")
	f.Add("a,,b", "malformed", "no scheme ?sig=1")
	f.Add("x\ny", "x: 1", "http://h@i:j@k/")
	f.Fuzz(func(t *testing.T, names, header, rawURL string) {
		r := NewRedactor(strings.Split(names, ","))
		s := Spec{URL: rawURL, Headers: []string{header}}
		once := r.Spec(s)
		if twice := r.Spec(once); twice.URL != once.URL || twice.Headers[0] != once.Headers[0] {
			t.Fatalf("not idempotent: %q %q, then %q %q", once.URL, once.Headers[0], twice.URL, twice.Headers[0])
		}
		if after := r.Spec(s.Redacted()); after.URL != once.URL || after.Headers[0] != once.Headers[0] {
			t.Fatalf("built-in redaction first gives %q %q, want %q %q", after.URL, after.Headers[0], once.URL, once.Headers[0])
		}
		if s.Headers[0] != header {
			t.Fatal("the input spec was changed")
		}
		name, _, ok := strings.Cut(header, ":")
		if ok && r.IsSecretName(name) && once.Headers[0] != name+": "+RedactedValue {
			t.Fatalf("secret header %q redacted to %q", header, once.Headers[0])
		}
		if !ok && r.IsSecretName(header) && once.Headers[0] != RedactedValue {
			t.Fatalf("malformed secret header %q redacted to %q", header, once.Headers[0])
		}
		for _, n := range r.Names() {
			// Header names are ASCII; Unicode case folding does not round trip.
			if isASCII(n) && !r.IsSecretName(strings.ToUpper(n)) {
				t.Fatalf("name %q from the list is not secret in upper case", n)
			}
		}
	})
}

// FuzzDuration decodes a JSON duration: it never panics, and what decodes
// survives MarshalJSON and UnmarshalJSON unchanged.
func FuzzDuration(f *testing.F) {
	for _, s := range []string{`"1m30s"`, `90`, `0.25`, `"-5s"`, `null`, `1e300`, `"2562047h"`, `-0`, `"µs"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Duration
		if err := json.Unmarshal(data, &d); err != nil {
			return
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("Marshal(%d): %v", d, err)
		}
		var again Duration
		if err := json.Unmarshal(b, &again); err != nil || again != d {
			t.Fatalf("%s decoded to %d, marshaled to %s, decoded again to %d (%v)", data, d, b, again, err)
		}
	})
}

// isASCII reports whether s is ASCII only.
func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
