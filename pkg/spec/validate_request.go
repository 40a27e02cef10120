package spec

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// validateMethod checks the HTTP method.
func (s Spec) validateMethod(p *problems, proto Protocol) {
	const f = "method"
	switch {
	case s.Method == "":
		if proto == ProtocolHTTP {
			p.add(f, "is required")
		}
	case proto != ProtocolHTTP && proto != ProtocolUnknown:
		p.add(f, "only applies to http, https and h2c URLs")
	case !isMethod(s.Method):
		p.add(f, "must be an HTTP method in upper-case letters, like GET or POST")
	}
}

// isMethod reports whether m is an upper-case method token: letters, with
// '-' or '_' inside (M-SEARCH, VERSION-CONTROL).
func isMethod(m string) bool {
	if m == "" || len(m) > MaxTextLength || m[0] < 'A' || m[0] > 'Z' {
		return false
	}
	for i := range len(m) {
		if c := m[i]; (c < 'A' || c > 'Z') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// validateHeaders checks the request headers.
func (s Spec) validateHeaders(p *problems, proto Protocol) {
	const f = "headers"
	switch {
	case len(s.Headers) == 0:
		return
	case proto == ProtocolTCP || proto == ProtocolUDP:
		p.add(f, "only apply to HTTP and gRPC URLs")
		return
	case len(s.Headers) > MaxHeaders:
		p.add(f, "must have at most %d entries", MaxHeaders)
		return
	}
	for i, h := range s.Headers {
		name, _, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		switch {
		case len(h) > MaxHeaderLength:
			p.add(index(f, i), "must be at most %d bytes", MaxHeaderLength)
		case hasControl(h):
			p.add(index(f, i), "must not contain CR, LF, NUL or other control characters")
		case !utf8.ValidString(h):
			p.add(index(f, i), "must be valid UTF-8")
		case !ok || name == "":
			p.add(index(f, i), `want "Name: value"`)
		case !isToken(name):
			p.add(index(f, i), "%.64q is not a valid header name", name)
		}
	}
}

// isToken reports whether s is an RFC 9110 token, as header names must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// hasControl reports whether s holds an ASCII control character other than
// tab (CR, LF and NUL among them).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return (r < 0x20 && r != '\t') || r == 0x7f
	})
}

// validatePayload checks the payload, payload file and content type.
func (s Spec) validatePayload(p *problems, proto Protocol) {
	switch {
	case proto == ProtocolUDP && len(s.Payload) > MaxUDPPayloadBytes:
		p.add("payload", "must be at most %d bytes for udp (one datagram)", MaxUDPPayloadBytes)
	case len(s.Payload) > MaxPayloadBytes:
		p.add("payload", "must be at most %d bytes", MaxPayloadBytes)
	}
	if s.PayloadFile != "" {
		switch {
		case s.Payload != "":
			p.add("payload_file", "cannot be combined with payload")
		case len(s.PayloadFile) > MaxPayloadFileLength:
			p.add("payload_file", "must be at most %d characters", MaxPayloadFileLength)
		case strings.IndexByte(s.PayloadFile, 0) >= 0:
			p.add("payload_file", "must not contain NUL")
		}
	}
	if s.ContentType != "" {
		switch {
		case proto != ProtocolHTTP && proto != ProtocolUnknown:
			p.add("content_type", "only applies to http, https and h2c URLs")
		case len(s.ContentType) > MaxTextLength:
			p.add("content_type", "must be at most %d characters", MaxTextLength)
		case hasControl(s.ContentType):
			p.add("content_type", "must not contain CR, LF, NUL or other control characters")
		}
	}
}

// validateTransport checks timeout, h2, h3, latency_header and abort_on; u is the parsed URL or
// nil when it is invalid.
func (s Spec) validateTransport(p *problems, u *url.URL) {
	checkDuration(p, "timeout", s.Timeout, MaxTimeout)
	if u == nil {
		return
	}
	if s.H3 && u.Scheme != "https" {
		p.add("h3", "only applies to https URLs (HTTP/3 is always over TLS)")
	}
	if s.H3 && s.H2 {
		p.add("h3", "give h2 or h3, not both")
	}
	if s.H2 && u.Scheme != "https" {
		p.add("h2", "only applies to https URLs (h2c:// is already HTTP/2)")
	}
	proto, _ := schemeProtocol(u.Scheme)
	switch {
	case s.LatencyHeader != "" && proto != ProtocolHTTP:
		p.add("latency_header", "only applies to http, https and h2c URLs")
	case s.LatencyHeader != "" && (len(s.LatencyHeader) > MaxLatencyHeaderLength || !isToken(s.LatencyHeader)):
		p.add("latency_header", "%.64q is not a valid header name", s.LatencyHeader)
	}
	if s.AbortOn != 0 && proto != ProtocolHTTP {
		p.add("abort_on", "only applies to http, https and h2c URLs")
		return
	}
	if s.AbortOn != 0 && s.AbortOn != -1 && (s.AbortOn < 100 || s.AbortOn > 599) {
		p.add("abort_on", "must be 0 (never), -1 (socket errors) or an HTTP status between 100 and 599")
	}
}

// validateGRPC checks the grpc block against the protocol.
func (s Spec) validateGRPC(p *problems, proto Protocol) {
	g := s.GRPC
	switch {
	case g == nil:
		if proto == ProtocolGRPC {
			p.add("grpc", "is required for grpc and grpcs URLs")
		}
		return
	case proto != ProtocolGRPC && proto != ProtocolUnknown:
		p.add("grpc", "only applies to grpc and grpcs URLs")
		return
	}
	s.validateGRPCMode(p)
	if len(g.Service) > MaxTextLength {
		p.add("grpc.service", "must be at most %d characters", MaxTextLength)
	}
	if g.PingDelay < 0 || g.PingDelay.Std() > MaxPingDelay {
		p.add("grpc.ping_delay", "must be between 0 and %s", formatDuration(MaxPingDelay))
	}
	switch {
	case g.Streams < 1 || g.Streams > MaxStreams:
		p.add("grpc.streams", "must be from 1 to %d", MaxStreams)
	case s.Connections >= 1 && s.Connections <= MaxConnections && s.Connections*g.Streams > MaxConnections:
		p.add("grpc.streams", "connections × streams must be at most %d", MaxConnections)
	}
}

// validateGRPCMode checks the fields of the grpc block that belong to one mode.
func (s Spec) validateGRPCMode(p *problems) {
	g := s.GRPC
	if g.Mode != GRPCMethod && g.Method != "" {
		p.add("grpc.method", "only applies to method mode")
	}
	switch g.Mode {
	case GRPCHealth:
		if s.HasPayload() {
			p.add("payload", "only applies to grpc ping and method modes (health checks carry no payload)")
		}
	case GRPCPing:
		if g.Service != "" {
			p.add("grpc.service", "only applies to health mode")
		}
	case GRPCMethod:
		if g.Service != "" {
			p.add("grpc.service", "only applies to health mode")
		}
		s.validateGRPCMethod(p)
	case "":
		p.add("grpc.mode", "is required")
	default:
		p.add("grpc.mode", "must be health, ping or method")
	}
	if g.Mode != GRPCPing && g.PingDelay != 0 {
		p.add("grpc.ping_delay", "only applies to ping mode")
	}
}

// validateGRPCMethod checks the method name and that an inline payload is
// a JSON object (a payload file is checked when the agent reads it).
func (s Spec) validateGRPCMethod(p *problems) {
	switch m := s.GRPC.Method; {
	case m == "":
		p.add("grpc.method", "is required in method mode")
	case len(m) > MaxTextLength:
		p.add("grpc.method", "must be at most %d characters", MaxTextLength)
	case !IsGRPCMethod(m):
		p.add("grpc.method", "%.64q: want package.Service/Method, like grpc.health.v1.Health/Check", m)
	}
	if s.Payload != "" && !isJSONObject(s.Payload) {
		p.add("payload", "must be the request message as a JSON object in method mode, like {\"name\": \"x\"}")
	}
}

// IsGRPCMethod reports whether m names a gRPC method as
// "package.Service/Method" (the package may be empty; a leading "/", as in
// the HTTP/2 path, is allowed): dot-separated protobuf identifiers, a slash,
// and one identifier.
func IsGRPCMethod(m string) bool {
	svc, method, ok := strings.Cut(strings.TrimPrefix(m, "/"), "/")
	if !ok || !isIdent(method) {
		return false
	}
	for part := range strings.SplitSeq(svc, ".") {
		if !isIdent(part) {
			return false
		}
	}
	return true
}

// isIdent reports whether s is a protobuf identifier: a letter or '_', then
// letters, digits and '_'.
func isIdent(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := range len(s) {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		default:
			return false
		}
	}
	return true
}

// isJSONObject reports whether s is one valid JSON object.
func isJSONObject(s string) bool {
	t := strings.TrimSpace(s)
	return strings.HasPrefix(t, "{") && json.Valid([]byte(t))
}

// validatePercentiles checks the reported percentiles.
func (s Spec) validatePercentiles(p *problems) {
	if len(s.Percentiles) == 0 || len(s.Percentiles) > MaxPercentiles {
		p.add("percentiles", "must have between 1 and %d entries", MaxPercentiles)
		return
	}
	for i, v := range s.Percentiles {
		if !(v > 0 && v <= 100) { // also catches NaN
			p.add(index("percentiles", i), "must be greater than 0 and at most 100")
		}
	}
}

// validateLabelMap checks the count, keys and values of the label map at
// field, in key order.
func validateLabelMap(p *problems, field string, labels map[string]string) {
	if len(labels) > MaxLabels {
		p.add(field, "must have at most %d entries", MaxLabels)
		return
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if !isLabelKey(k) {
			p.add(field, "key %.64q must be 1 to %d characters of A-Z, a-z, 0-9, '_', '.' or '-'", k, MaxLabelKeyLength)
			continue
		}
		if !utf8.ValidString(labels[k]) {
			p.add(field+"."+k, "must be valid UTF-8")
		} else if utf8.RuneCountInString(labels[k]) > MaxLabelValueLength {
			p.add(field+"."+k, "must be at most %d characters", MaxLabelValueLength)
		}
	}
}

// validateAgents checks the agent count and selector.
func (s Spec) validateAgents(p *problems) {
	if s.Agents == nil {
		return
	}
	if s.Agents.Count < 0 || s.Agents.Count > MaxAgents {
		p.add("agents.count", "must be from 0 (every agent) to %d", MaxAgents)
	}
	validateLabelMap(p, "agents.selector", s.Agents.Selector)
}

// isLabelKey reports whether k is 1 to MaxLabelKeyLength characters of
// [A-Za-z0-9_.-].
func isLabelKey(k string) bool {
	if k == "" || len(k) > MaxLabelKeyLength {
		return false
	}
	for i := range len(k) {
		switch c := k[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}

// validateText refuses text fields that are not valid UTF-8: the spec is
// JSON, which cannot carry such bytes, so the spec stored or sent to the
// agents would differ from the one checked (a binary body goes in a
// payload file). Headers and labels are checked with their other rules.
func (s Spec) validateText(p *problems) {
	fields := []struct{ name, value string }{
		{"url", s.URL}, {"method", s.Method}, {"payload", s.Payload},
		{"payload_file", s.PayloadFile}, {"content_type", s.ContentType},
		{"unix_socket", s.UnixSocket},
	}
	if s.GRPC != nil {
		fields = append(fields, struct{ name, value string }{"grpc.service", s.GRPC.Service},
			struct{ name, value string }{"grpc.method", s.GRPC.Method})
	}
	for _, f := range fields {
		if !utf8.ValidString(f.value) {
			p.add(f.name, "must be valid UTF-8")
		}
	}
}
