package spec

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
)

// MaxRequests is the most entries of a request mix: each keeps its own
// histograms on every agent.
const MaxRequests = 16

// MaxBodySize is the largest body_size.max.
const MaxBodySize = 16 << 20

// Request is one entry of a weighted request mix (Goader's reads and
// writes at their own rates): its own method, URL, headers and body, and
// its share of the run's rate. Its results are kept apart as well as in the
// run's total.
type Request struct {
	// Name labels the entry's results; default "METHOD path" of its URL.
	Name string `json:"name,omitempty"`
	// Method defaults to GET, or POST with a body.
	Method string `json:"method,omitempty"`
	// URL has the run url's scheme and host; its path and query may be a
	// template.
	URL string `json:"url"`
	// Headers are sent after the run's headers, as "Name: value".
	Headers []string `json:"headers,omitempty"`
	// Body is the request body, possibly a template.
	Body string `json:"body,omitempty"`
	// BodySize sends a random body of a random size instead.
	BodySize *BodySize `json:"body_size,omitempty"`
	// Weight is the entry's share of the run's rate, relative to the
	// other entries' weights; default 1. Excludes QPS.
	Weight float64 `json:"weight,omitempty"`
	// QPS is the entry's own rate (Goader's -rps/-wps); the run's qps is
	// then the sum of the entries'. Given for every entry or for none.
	QPS float64 `json:"qps,omitempty"`
}

// BodySize is a range of random body sizes, in bytes.
type BodySize struct {
	// Min and Max bound the size (inclusive).
	Min int `json:"min"`
	Max int `json:"max"`
	// Fair draws sizes so that every size range carries the same share of
	// the bytes (Goader's -fair-random: small bodies are more frequent,
	// density 1/size), instead of uniformly.
	Fair bool `json:"fair,omitempty"`
}

// EntryName returns the name of entry i of the mix.
func (s Spec) EntryName(i int) string {
	r := s.Requests[i]
	if r.Name != "" {
		return r.Name
	}
	_, target := reqtemplate.SplitURL(RedactURL(r.URL))
	return r.Method + " " + target
}

// EntryWeights returns the relative rate of each entry of the mix: its qps
// or its weight.
func (s Spec) EntryWeights() []float64 {
	w := make([]float64, len(s.Requests))
	for i, r := range s.Requests {
		w[i] = r.Weight
		if r.QPS > 0 {
			w[i] = r.QPS
		}
	}
	return w
}

// normalizeRequests fills the defaults of the mix: method, weight, and
// the run's qps from the entries' own rates.
func (s *Spec) normalizeRequests() {
	if len(s.Requests) == 0 {
		s.Requests = nil
		return
	}
	if s.URL == "" {
		s.URL = s.Requests[0].URL
	}
	var sum float64
	for i := range s.Requests {
		r := &s.Requests[i]
		if r.Method == "" {
			r.Method = "GET"
			if r.Body != "" || r.BodySize != nil {
				r.Method = "POST"
			}
		}
		if r.Weight == 0 && r.QPS == 0 {
			r.Weight = 1
		}
		if len(r.Headers) == 0 {
			r.Headers = nil
		}
		sum += r.QPS
	}
	if s.QPS == 0 && s.Ramp == nil && sum > 0 && !math.IsInf(sum, 0) {
		s.QPS = sum
	}
}

// validateRequests checks the mix.
func (s Spec) validateRequests(p *problems, proto Protocol) {
	if len(s.Requests) == 0 {
		return
	}
	switch {
	case len(s.Requests) > MaxRequests:
		p.add("requests", "must have at most %d entries", MaxRequests)
		return
	case proto != ProtocolHTTP && proto != ProtocolUnknown:
		p.add("requests", "only apply to http and https URLs")
		return
	case !s.ownHTTP1Client():
		p.add("requests", "are supported on HTTP/1.1 targets only, not with h2, h2c, h3 or follow_redirects")
		return
	case len(s.URLs) > 0:
		p.add("requests", "cannot be combined with urls (give each entry its URL)")
	case s.HasPayload() || s.Method != "GET" && s.Method != "":
		p.add("requests", "cannot be combined with a run payload or method (give each entry its own)")
	}
	s.validateEntryRates(p)
	want, _ := reqtemplate.SplitURL(s.URL)
	for i, r := range s.Requests {
		r.validate(p, index("requests", i), want)
	}
}

// validateEntryRates checks weights and own rates.
func (s Spec) validateEntryRates(p *problems) {
	withQPS := 0
	var sum float64
	for i, r := range s.Requests {
		f := index("requests", i)
		checkRate(p, f+".qps", r.QPS, false)
		if math.IsNaN(r.Weight) || math.IsInf(r.Weight, 0) || r.Weight < 0 || r.Weight > 1e6 {
			p.add(f+".weight", "must be between 0 and 1000000")
		}
		if r.QPS > 0 {
			withQPS++
			sum += r.QPS
			if r.Weight != 0 {
				p.add(f+".weight", "give weight or qps, not both")
			}
		}
	}
	switch {
	case withQPS > 0 && withQPS < len(s.Requests):
		p.add("requests", "give qps for every entry or for none")
	case withQPS > 0 && s.Pacing != PacingOpen && s.Pacing != PacingFortio:
		p.add("requests", "own rates (qps) need open or fortio pacing")
	case withQPS > 0 && s.Ramp != nil:
		p.add("requests", "own rates (qps) cannot be combined with a ramp")
	case withQPS > 0 && math.Abs(s.QPS-sum) > 1e-6*max(sum, 1):
		p.add("qps", "must be 0 or the sum of requests[].qps (%s)", formatFloat(sum))
	}
}

// validate checks one entry; field is its JSON path, authority the run
// URL's scheme and host.
func (r Request) validate(p *problems, field, authority string) {
	auth, _ := reqtemplate.SplitURL(r.URL)
	switch {
	case r.URL == "":
		p.add(field+".url", "is required")
	case len(r.URL) > MaxURLLength:
		p.add(field+".url", "must be at most %d characters", MaxURLLength)
	case hasControl(r.URL) || !utf8.ValidString(r.URL):
		p.add(field+".url", "must be valid UTF-8 without control characters")
	case !strings.EqualFold(auth, authority):
		p.add(field+".url", "must have the scheme and host of url (%s): one mix goes to one target", RedactURL(authority))
	default:
		if _, err := URLTemplate(r.URL); err != nil {
			p.add(field+".url", "%s", templateReason(err))
		}
	}
	if !isMethod(r.Method) {
		p.add(field+".method", "must be an HTTP method in upper-case letters, like GET or POST")
	}
	if len(r.Name) > MaxTextLength || hasControl(r.Name) || !utf8.ValidString(r.Name) {
		p.add(field+".name", "must be at most %d characters of text", MaxTextLength)
	}
	sub := Spec{Headers: r.Headers}
	var hp problems
	sub.validateHeaders(&hp, ProtocolHTTP)
	for _, e := range hp.errs {
		p.add(field+"."+e.Field, "%s", e.Message)
	}
	r.validateBody(p, field)
}

// validateBody checks the body or the body size.
func (r Request) validateBody(p *problems, field string) {
	if r.Body != "" && r.BodySize != nil {
		p.add(field, "give body or body_size, not both")
	}
	switch {
	case len(r.Body) > MaxPayloadBytes:
		p.add(field+".body", "must be at most %d bytes", MaxPayloadBytes)
	case !utf8.ValidString(r.Body):
		p.add(field+".body", "must be valid UTF-8")
	default:
		if _, err := PayloadTemplate(r.Body); err != nil {
			p.add(field+".body", "%s", templateReason(err))
		}
	}
	if b := r.BodySize; b != nil && (b.Min < 0 || b.Max < b.Min || b.Max > MaxBodySize || b.Max == 0) {
		p.add(field+".body_size", "needs 0 <= min <= max <= %d and max > 0", MaxBodySize)
	}
}

// cloneRequests deep-copies a mix.
func cloneRequests(rs []Request) []Request {
	out := slices.Clone(rs)
	for i := range out {
		out[i].Headers = slices.Clone(rs[i].Headers)
		if rs[i].BodySize != nil {
			b := *rs[i].BodySize
			out[i].BodySize = &b
		}
	}
	return out
}
