package spec

import (
	"strings"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
)

// MaxWrittenURLs is the most written URLs one run records
// (record_written_urls), split evenly across its shards; the writes past
// it are counted as dropped, not stored.
const MaxWrittenURLs = 1_000_000

// IsWriteMethod reports whether an HTTP method writes: every method but
// GET, HEAD and OPTIONS.
func IsWriteMethod(method string) bool {
	switch method {
	case "GET", "HEAD", "OPTIONS":
		return false
	default:
		return method != ""
	}
}

// URLOrigin returns the scheme and authority of the spec's HTTP URL
// without its userinfo ("http://host:port"), the prefix of the written
// URLs the agents record: credentials never travel with them.
func (s Spec) URLOrigin() string {
	return Origin(s.HTTPURL())
}

// Origin returns the scheme and authority of raw without userinfo
// ("https://user:pw@host:8443/x" gives "https://host:8443").
func Origin(raw string) string {
	auth, _ := reqtemplate.SplitURL(raw)
	scheme, host, ok := strings.Cut(auth, "://")
	if !ok {
		return auth
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	return scheme + "://" + host
}

// Rebase returns raw's request target (path and query) on base's scheme
// and authority, userinfo included: the URLs of a run's urls_from_run go
// to its own url's target.
func Rebase(base, raw string) string {
	authority, _ := reqtemplate.SplitURL(base)
	_, target := reqtemplate.SplitURL(raw)
	return authority + target
}

// validateWrittenURLs checks record_written_urls and urls_from_run.
func (s Spec) validateWrittenURLs(p *problems, proto Protocol) {
	if s.RecordWrittenURLs {
		switch {
		case proto != ProtocolHTTP && proto != ProtocolUnknown:
			p.add("record_written_urls", "only applies to http and https URLs")
		case !s.ownHTTP1Client():
			p.add("record_written_urls", "is supported on HTTP/1.1 targets only, not with h2, h2c, h3 or follow_redirects")
		}
	}
	if s.URLsFromRun == "" {
		return
	}
	switch {
	case uuid.Validate(s.URLsFromRun) != nil:
		p.add("urls_from_run", "must be a run id (a UUID)")
	case proto != ProtocolHTTP && proto != ProtocolUnknown:
		p.add("urls_from_run", "only applies to http and https URLs")
	case !s.ownHTTP1Client():
		p.add("urls_from_run", "is supported on HTTP/1.1 targets only, not with h2, h2c, h3 or follow_redirects")
	case len(s.Requests) > 0:
		p.add("urls_from_run", "cannot be combined with requests")
	}
}
