package spec

import (
	"regexp"
	"slices"
	"strings"
)

// Redactor redacts specs, URLs and headers like Redacted, RedactURL and
// IsSecretName, and also treats a deployment's own list of header (and
// query parameter) names as secret: BARRAGE_SECRET_HEADERS on the API; with
// WithBodyPattern it also redacts request bodies (BARRAGE_REDACT_BODY). The
// zero Redactor knows only the built-in names. It is a value and safe for
// concurrent use, and comparable.
type Redactor struct {
	// names are the extra secret names, lower case, sorted, without
	// repeats, each followed by a newline and the first preceded by one
	// ("\na\nb\n"); "" for none. A string keeps Redactor comparable.
	names string
	// body is the body pattern (WithBodyPattern); nil for none. A
	// Regexp is safe for concurrent use, and a pointer keeps Redactor
	// comparable.
	body *regexp.Regexp
}

// NewRedactor returns a redactor that treats names, matched whole and
// ignoring case and surrounding spaces, as secret on top of the built-in
// ones. Empty names and names with a line break are ignored.
func NewRedactor(names []string) Redactor {
	var list []string
	for _, n := range names {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" && !strings.ContainsAny(n, "\r\n") {
			list = append(list, n)
		}
	}
	if len(list) == 0 {
		return Redactor{}
	}
	slices.Sort(list)
	return Redactor{names: "\n" + strings.Join(slices.Compact(list), "\n") + "\n"}
}

// Names returns the extra secret names of r, lower case and sorted.
func (r Redactor) Names() []string {
	return strings.FieldsFunc(r.names, func(c rune) bool { return c == '\n' })
}

// IsSecretName reports whether a header or query parameter of this name
// carries a secret: a built-in name (see the function IsSecretName) or one
// of r's names.
func (r Redactor) IsSecretName(name string) bool {
	if IsSecretName(name) {
		return true
	}
	n := strings.ToLower(strings.TrimSpace(name))
	return r.names != "" && n != "" && !strings.ContainsAny(n, "\r\n") && strings.Contains(r.names, "\n"+n+"\n")
}

// Spec returns a deep copy of s that is safe to store, show and log, as
// s.Redacted() but with r's names secret too.
func (r Redactor) Spec(s Spec) Spec {
	c := s.Clone()
	c.URL = r.URL(s.URL)
	c.Payload = r.redactBody(c.Payload)
	c.TLSSettings = redactTLS(c.TLSSettings)
	for i, u := range c.URLs {
		c.URLs[i] = r.URL(u)
	}
	for i, h := range c.Headers {
		c.Headers[i] = r.header(h)
	}
	r.redactScenario(c.Scenario)
	for i := range c.Requests {
		e := &c.Requests[i]
		e.URL = r.URL(e.URL)
		e.Body = r.redactBody(e.Body)
		for j, h := range e.Headers {
			e.Headers[j] = r.header(h)
		}
	}
	return c
}

// URL returns raw redacted as RedactURL does, with r's names secret too.
func (r Redactor) URL(raw string) string {
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
		authority = redactUserinfo(authority[:at]) + authority[at:]
	}
	return scheme + "://" + authority + r.query(tail)
}

// redactUserinfo replaces the username and the password of a URL's
// userinfo by RedactedValue: either may be the secret (a token is often
// the username, as in https://ghp_x@github.com). An empty username stays
// empty.
func redactUserinfo(userinfo string) string {
	user, _, hasPassword := strings.Cut(userinfo, ":")
	if user != "" {
		user = RedactedValue
	}
	if hasPassword {
		return user + ":" + RedactedValue
	}
	return user
}

// header redacts the value of a "Name: value" header with a secret name. A
// malformed entry that mentions a secret name is redacted whole.
func (r Redactor) header(h string) string {
	name, _, ok := strings.Cut(h, ":")
	switch {
	case !ok && r.IsSecretName(h):
		return RedactedValue
	case ok && r.IsSecretName(name):
		return name + ": " + RedactedValue
	default:
		return h
	}
}
