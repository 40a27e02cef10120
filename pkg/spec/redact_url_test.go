package spec

import (
	"net/url"
	"strings"
	"testing"
)

// TestRedactURLSecrets: the username of a URL (a token is often one) and
// the sig, signature, X-Amz-Signature, token and key query parameters,
// whatever their case, are redacted in the run URL, the URL list and the
// request mix alike, and every other byte of the URL is kept.
func TestRedactURLSecrets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, want string
	}{
		{name: "username only", url: "https://ghp_x@github.com/o/r.git", want: "https://REDACTED@github.com/o/r.git"},
		{name: "username only no path", url: "https://ghp_x@host", want: "https://REDACTED@host"},
		{name: "username with port", url: "http://tok3n@example.com:8080/p?x=1#f",
			want: "http://REDACTED@example.com:8080/p?x=1#f"},
		{name: "token username and password", url: "https://ghp_x:x-oauth-basic@github.com/",
			want: "https://REDACTED:REDACTED@github.com/"},
		{name: "empty username keeps password redacted", url: "http://:pw@h/", want: "http://:REDACTED@h/"},
		{name: "empty userinfo", url: "http://@h/", want: "http://@h/"},
		{name: "escaped username", url: "https://a%40b@h/", want: "https://REDACTED@h/"},
		{name: "sig", url: "https://h/p?sig=abc&x=1", want: "https://h/p?sig=REDACTED&x=1"},
		{name: "SIG upper case", url: "https://h/p?SIG=abc", want: "https://h/p?SIG=REDACTED"},
		{name: "signature", url: "https://h/p?a=1&Signature=abc%2F%3D", want: "https://h/p?a=1&Signature=REDACTED"},
		{name: "X-Amz-Signature", url: "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261126T000000Z" +
			"&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=0123abcd",
			want: "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261126T000000Z" +
				"&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=REDACTED"},
		{name: "x-amz-signature lower case", url: "https://h/?x-amz-signature=f", want: "https://h/?x-amz-signature=REDACTED"},
		{name: "token", url: "https://h/?Token=t&page=2#top", want: "https://h/?Token=REDACTED&page=2#top"},
		{name: "key", url: "https://maps.example/api?KEY=AIza&q=a+b", want: "https://maps.example/api?KEY=REDACTED&q=a+b"},
		{name: "escaped name", url: "https://h/?%73ig=1", want: "https://h/?%73ig=REDACTED"},
		{name: "repeated parameter", url: "https://h/?sig=1&sig=2", want: "https://h/?sig=REDACTED&sig=REDACTED"},
		{name: "empty value", url: "https://h/?sig=&x=", want: "https://h/?sig=REDACTED&x="},
		{name: "all at once", url: "https://u@h:1/a/b;c?signature=s&keep=%20&key=k#frag?sig=1",
			want: "https://REDACTED@h:1/a/b;c?signature=REDACTED&keep=%20&key=REDACTED#frag?sig=1"},
		{name: "sigs kept", url: "https://h/?sigs=1&design=2&signed=3", want: "https://h/?sigs=1&design=2&signed=3"},
		{name: "sig in path kept", url: "https://h/sig=1/token", want: "https://h/sig=1/token"},
		{name: "at in query kept", url: "https://h/?to=a@b", want: "https://h/?to=a@b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := Spec{URL: tt.url, URLs: []string{tt.url, "https://h/plain"}, Requests: []Request{{URL: tt.url}}}
			got := s.Redacted()
			for where, u := range map[string]string{"url": got.URL, "urls[0]": got.URLs[0], "requests[0].url": got.Requests[0].URL,
				"RedactURL": RedactURL(tt.url), "Redactor.URL": NewRedactor([]string{"X-Other"}).URL(tt.url)} {
				if u != tt.want {
					t.Errorf("%s = %q, want %q", where, u, tt.want)
				}
			}
			if got.URLs[1] != "https://h/plain" {
				t.Errorf("urls[1] = %q, want it kept", got.URLs[1])
			}
			if again := RedactURL(tt.want); again != tt.want {
				t.Errorf("redacting twice gives %q, want %q", again, tt.want)
			}
			assertPublicPartsKept(t, tt.url, got.URL)
		})
	}
}

// assertPublicPartsKept checks that redacted differs from raw only in the
// userinfo and the values of secret query parameters: the scheme, host,
// path, fragment and every other query parameter are byte-identical.
func assertPublicPartsKept(t *testing.T, raw, redacted string) {
	t.Helper()
	in, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("url.Parse(%q): %v", raw, err)
	}
	out, err := url.Parse(redacted)
	if err != nil {
		t.Fatalf("url.Parse(%q): %v", redacted, err)
	}
	if in.Scheme != out.Scheme || in.Host != out.Host || in.EscapedPath() != out.EscapedPath() ||
		in.EscapedFragment() != out.EscapedFragment() {
		t.Errorf("%q -> %q changed the scheme, host, path or fragment", raw, redacted)
	}
	inParams, outParams := strings.Split(in.RawQuery, "&"), strings.Split(out.RawQuery, "&")
	if len(inParams) != len(outParams) {
		t.Fatalf("%q -> %q changed the number of query parameters", raw, redacted)
	}
	for i, p := range inParams {
		name, _, _ := strings.Cut(p, "=")
		decoded, err := url.QueryUnescape(name)
		if err != nil {
			decoded = name
		}
		want := p
		if IsSecretName(decoded) && strings.Contains(p, "=") {
			want = name + "=" + RedactedValue
		}
		if outParams[i] != want {
			t.Errorf("query parameter %d of %q = %q, want %q", i, raw, outParams[i], want)
		}
	}
}
