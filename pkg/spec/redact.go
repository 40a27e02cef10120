package spec

import (
	"net/url"
	"strings"
)

// RedactedValue replaces every secret that Redacted removes.
const RedactedValue = "REDACTED"

// Redacted returns a deep copy of s that is safe to store, show and log
// (DESIGN §7): the values of secret headers (see IsSecretName), the password
// in the URL's userinfo and the values of URL query parameters with secret
// names are replaced by RedactedValue. s itself is not changed. Redacting
// twice gives the same result as once.
func (s Spec) Redacted() Spec {
	c := s.Clone()
	c.URL = redactURL(s.URL)
	for i, h := range c.Headers {
		c.Headers[i] = redactHeader(h)
	}
	return c
}

// IsSecretName reports whether a header or query parameter of this name
// carries a secret: Authorization, Proxy-Authorization, Cookie, Set-Cookie,
// X-Api-Key, or any name containing "token", "secret", "password", "passwd",
// "key", "auth", "credential" or "session", ignoring case.
func IsSecretName(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key":
		return true
	}
	for _, word := range [...]string{"token", "secret", "password", "passwd", "key", "auth", "credential", "session"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}

// redactHeader redacts the value of a "Name: value" header with a secret
// name. A malformed entry that mentions a secret name is redacted whole.
func redactHeader(h string) string {
	name, _, ok := strings.Cut(h, ":")
	switch {
	case !ok && IsSecretName(h):
		return RedactedValue
	case ok && IsSecretName(name):
		return name + ": " + RedactedValue
	default:
		return h
	}
}

// redactURL replaces the userinfo password and the values of secret query
// parameters. It edits the text rather than re-encoding a parsed URL, so the
// rest stays byte for byte, and it works on URLs that do not parse too.
// It splits the URL the way net/url does: the authority ends at the first
// '/', '?' or '#', and the userinfo ends at its last '@'.
func redactURL(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		if user, _, hasPassword := strings.Cut(authority[:at], ":"); hasPassword {
			authority = user + ":" + RedactedValue + authority[at:]
		}
	}
	return scheme + "://" + authority + redactQuery(tail)
}

// redactQuery replaces the values of secret query parameters in the
// path?query#fragment tail of a URL.
func redactQuery(tail string) string {
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
		if hasValue && IsSecretName(decoded) {
			params[i] = name + "=" + RedactedValue
		}
	}
	out := path + "?" + strings.Join(params, "&")
	if hasFragment {
		out += "#" + fragment
	}
	return out
}
