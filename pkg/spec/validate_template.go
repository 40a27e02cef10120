package spec

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
)

// URLTemplate parses the request target (path and query) of an HTTP URL
// as a template; Goader's XXXXX, NNNNN and RRRRR are accepted there too.
func URLTemplate(raw string) (*reqtemplate.Template, error) {
	_, target := reqtemplate.SplitURL(raw)
	return reqtemplate.Parse(target, reqtemplate.Options{Aliases: true})
}

// PayloadTemplate parses an HTTP payload as a template.
func PayloadTemplate(payload string) (*reqtemplate.Template, error) {
	return reqtemplate.Parse(payload, reqtemplate.Options{})
}

// RequestTargets returns the request targets (path and query) the spec's
// HTTP requests go to, parsed as templates: the URL list's, or the URL's
// alone. A list filled from urls_from_run is sent as it was recorded, so
// its entries are literal.
func (s Spec) RequestTargets() ([]*reqtemplate.Template, error) {
	list := s.URLs
	if len(list) == 0 {
		list = []string{s.URL}
	}
	out := make([]*reqtemplate.Template, len(list))
	for i, u := range list {
		if len(s.URLs) > 0 && s.URLsFromRun != "" {
			_, target := reqtemplate.SplitURL(u)
			out[i] = reqtemplate.Literal(target)
			continue
		}
		t, err := URLTemplate(u)
		if err != nil {
			return nil, fmt.Errorf("urls[%d]: %w", i, err)
		}
		out[i] = t
	}
	return out, nil
}

// validateURLList checks urls and url_order.
func (s Spec) validateURLList(p *problems, proto Protocol) {
	if len(s.URLs) == 0 {
		switch {
		case s.URLOrder == "":
		case s.URLsFromRun == "":
			p.add("url_order", "only applies with urls or urls_from_run")
		case s.URLOrder != URLRoundRobin && s.URLOrder != URLRandom:
			p.add("url_order", "must be round_robin or random")
		}
		return
	}
	switch {
	case s.URLOrder != URLRoundRobin && s.URLOrder != URLRandom:
		p.add("url_order", "must be round_robin or random")
	case len(s.URLs) > MaxURLs:
		p.add("urls", "must have at most %d entries", MaxURLs)
		return
	case proto != ProtocolHTTP && proto != ProtocolUnknown:
		p.add("urls", "only apply to http and https URLs")
		return
	case !s.ownHTTP1Client():
		p.add("urls", "are supported on HTTP/1.1 targets only, not with h2, h2c, h3 or follow_redirects")
		return
	}
	want, _ := reqtemplate.SplitURL(s.URL)
	for i, u := range s.URLs {
		f := index("urls", i)
		auth, _ := reqtemplate.SplitURL(u)
		switch {
		case len(u) > MaxURLLength:
			p.add(f, "must be at most %d characters", MaxURLLength)
		case hasControl(u) || !utf8.ValidString(u):
			p.add(f, "must be valid UTF-8 without control characters")
		case !strings.EqualFold(auth, want):
			p.add(f, "must have the scheme and host of url (%s): one list goes to one target", RedactURL(want))
		case s.URLsFromRun != "":
			// Recorded URLs are literal (RequestTargets).
		default:
			if _, err := URLTemplate(u); err != nil {
				p.add(f, "%s", templateReason(err))
			}
		}
	}
}

// Templated reports whether the spec's HTTP URL or payload has
// placeholders (see package reqtemplate). Other protocols send their
// payload as it is.
func (s Spec) Templated() bool {
	if s.Protocol() != ProtocolHTTP {
		return false
	}
	u, uerr := URLTemplate(s.URL)
	b, berr := PayloadTemplate(s.Payload)
	return len(s.URLs) > 0 || (uerr == nil && u.Dynamic()) || (berr == nil && b.Dynamic())
}

// validateTemplates checks the placeholders of an HTTP URL and payload.
func (s Spec) validateTemplates(p *problems, proto Protocol) {
	if proto != ProtocolHTTP {
		return
	}
	u, uerr := URLTemplate(s.URL)
	if uerr != nil {
		p.add("url", "%s", templateReason(uerr))
	}
	b, berr := PayloadTemplate(s.Payload)
	if berr != nil {
		p.add("payload", "%s", templateReason(berr))
	}
	if (u.Dynamic() || b.Dynamic()) && (!s.ownHTTP1Client()) {
		field := "url"
		if !u.Dynamic() {
			field = "payload"
		}
		p.add(field, "templates ({seq}, {rand:N}, ...) are supported on HTTP/1.1 targets only, not with h2, h2c, h3 or follow_redirects")
	}
}

// templateReason is a template error without the package's prefix.
func templateReason(err error) string {
	msg := err.Error()
	if errors.Is(err, reqtemplate.ErrSyntax) {
		msg = strings.TrimPrefix(msg, reqtemplate.ErrSyntax.Error()+": ")
	}
	return "bad template: " + msg
}
