package spec

import (
	"net/url"
	"strings"
)

// RedactedValue replaces every secret that Redacted removes.
const RedactedValue = "REDACTED"

// Redacted returns a deep copy of s that is safe to store, show and log
// (docs/architecture.md §7): the values of secret headers (see IsSecretName), the username
// and password in the URL's userinfo and the values of URL query parameters with secret
// names are replaced by RedactedValue. s itself is not changed. Redacting
// twice gives the same result as once.
func (s Spec) Redacted() Spec {
	return Redactor{}.Spec(s)
}

// IsSecretName reports whether a header or query parameter of this name
// carries a secret: Authorization, Proxy-Authorization, Cookie, Set-Cookie,
// X-Api-Key, Sig, or any name containing "token", "secret", "password",
// "passwd", "key", "auth", "credential", "session" or "signature" (so
// X-Amz-Signature and X-Goog-Signature), ignoring case.
func IsSecretName(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "sig":
		return true
	}
	for _, word := range [...]string{
		"token", "secret", "password", "passwd", "key", "auth", "credential", "session", "signature",
	} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}

// query replaces the values of secret query parameters in the
// path?query#fragment tail of a URL.
func (r Redactor) query(tail string) string {
	beforeFragment, fragment, hasFragment := strings.Cut(tail, "#")
	path, query, hasQuery := strings.Cut(beforeFragment, "?")
	if !hasQuery {
		return tail
	}
	params := strings.Split(query, "&")
	for i, param := range params {
		name, _, hasValue := strings.Cut(param, "=")
		decoded, err := url.QueryUnescape(name)
		if err != nil {
			decoded = name
		}
		if hasValue && r.IsSecretName(decoded) {
			params[i] = name + "=" + RedactedValue
		}
	}
	out := path + "?" + strings.Join(params, "&")
	if hasFragment {
		out += "#" + fragment
	}
	return out
}
