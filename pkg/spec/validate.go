package spec

import (
	"errors"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Validate checks a normalized spec (call Normalize first; Parse does) and
// returns a *ValidationError listing every problem, each with the JSON path
// of its field, or nil. Checks that depend on the protocol are skipped while
// the URL itself is invalid, so the report stays about real problems.
func (s Spec) Validate() error {
	var p problems
	if s.Scenario != nil {
		s.validateScenarioRun(&p)
		return p.err()
	}
	if s.IterationsPerSecond != 0 {
		p.add("iterations_per_second", "only with a scenario")
	}
	u := validateURL(&p, s.URL)
	proto := ProtocolUnknown
	if u != nil {
		proto, _ = schemeProtocol(u.Scheme)
	}
	s.validateRate(&p)
	s.validateLength(&p)
	s.validatePacing(&p)
	s.validateRamp(&p)
	s.validateStages(&p)
	s.validateRateAbort(&p)
	s.validateMethod(&p, proto)
	s.validateHeaders(&p, proto)
	s.validatePayload(&p, proto)
	s.validateTemplates(&p, proto)
	s.validateURLList(&p, proto)
	s.validateRequests(&p, proto)
	s.validateWrittenURLs(&p, proto)
	s.validateTransport(&p, u)
	s.validateHTTPOptions(&p, u)
	s.validateTLS(&p, u)
	s.validateGRPC(&p, proto)
	s.validatePercentiles(&p)
	validateLabelMap(&p, "labels", s.Labels)
	s.validateAgents(&p)
	s.validateText(&p)
	return p.err()
}

// schemeList is the supported URL schemes, for messages.
const schemeList = "http, https, h2c, grpc, grpcs, tcp or udp"

// validateURL checks the target URL and returns it parsed, or nil when it is
// unusable.
func validateURL(p *problems, raw string) *url.URL {
	const f = "url"
	switch {
	case raw == "":
		p.add(f, "is required")
		return nil
	case len(raw) > MaxURLLength:
		p.add(f, "must be at most %d characters", MaxURLLength)
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		p.add(f, "is not a valid URL: %s", urlReason(err))
		return nil
	}
	proto, _ := schemeProtocol(u.Scheme)
	switch {
	case u.Scheme == "":
		p.add(f, "must start with a scheme: %s", schemeList)
		return nil
	case proto == ProtocolUnknown:
		p.add(f, "scheme %q is not supported; use %s", u.Scheme, schemeList)
		return nil
	case u.Hostname() == "" && proto == ProtocolHTTP:
		p.add(f, "must include a host, like %s://host/path", u.Scheme)
		return nil
	case u.Hostname() == "":
		p.add(f, "must include a host, like %s://host:port", u.Scheme)
		return nil
	}
	valid := true
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			p.add(f, "port must be between 1 and 65535")
			valid = false
		}
	}
	if proto != ProtocolHTTP {
		if u.Port() == "" {
			p.add(f, "must include a port, like %s://host:port", u.Scheme)
			valid = false
		}
		if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
			p.add(f, "must be just %s://host:port, with no user, path or query", u.Scheme)
			valid = false
		}
	}
	if !valid {
		return nil
	}
	return u
}

// urlReason returns why url.Parse failed, without repeating the URL (which
// may hold a password).
func urlReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return strings.TrimPrefix(err.Error(), "net/url: ")
}

// validateRate checks qps and connections.
func (s Spec) validateRate(p *problems) {
	checkRate(p, "qps", s.QPS, false)
	if s.Connections < 1 || s.Connections > MaxConnections {
		p.add("connections", "must be between 1 and %d", MaxConnections)
	}
}

// checkRate checks a requests-per-second value: finite, at least 0 (or
// greater than 0 when positive is set) and at most MaxQPS.
func checkRate(p *problems, field string, v float64, positive bool) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		p.add(field, "must be a finite number")
	case positive && v <= 0:
		p.add(field, "must be greater than 0")
	case v < 0:
		p.add(field, "must be at least 0")
	case v > MaxQPS:
		p.add(field, "must be at most %s", formatFloat(MaxQPS))
	}
}

// validateLength checks that exactly one of duration, count and
// until_stopped bounds the run, and their ranges.
func (s Spec) validateLength(p *problems) {
	switch {
	case s.UntilStopped && s.Duration != 0:
		p.add("duration", "cannot be combined with until_stopped")
	case s.Count != 0 && s.Duration != 0:
		p.add("duration", "cannot be combined with count")
	case s.Duration == 0 && s.Count == 0 && !s.UntilStopped:
		p.add("duration", "is required unless count or until_stopped is set")
	}
	if s.UntilStopped && s.Count != 0 {
		p.add("count", "cannot be combined with until_stopped")
	}
	if s.Duration != 0 {
		checkDuration(p, "duration", s.Duration, MaxDuration)
	}
	if s.Count < 0 || s.Count > MaxCount {
		p.add("count", "must be between 1 and %d", MaxCount)
	}
}

// checkDuration checks that d is greater than 0 and at most limit.
func checkDuration(p *problems, field string, d Duration, limit time.Duration) {
	switch {
	case d <= 0:
		p.add(field, "must be greater than 0")
	case d.Std() > limit:
		p.add(field, "must be at most %s", formatDuration(limit))
	}
}

// validatePacing checks the pacing mode against the rate.
func (s Spec) validatePacing(p *problems) {
	switch s.Pacing {
	case PacingOpen:
		if s.QPS <= 0 && s.Ramp == nil && len(s.Stages) == 0 {
			p.add("pacing", "open pacing needs qps greater than 0, a ramp or stages")
		}
	case PacingClosed:
		if s.QPS > 0 {
			p.add("pacing", "closed pacing sends as fast as possible; set qps to 0, or use open or fortio pacing")
		}
	case PacingFortio:
		// Any qps >= 0 works, and validateRate checks that.
	case "":
		p.add("pacing", "is required")
	default:
		p.add("pacing", "must be open, closed or fortio")
	}
	if s.NoCatchUp && s.Pacing != PacingFortio {
		p.add("no_catchup", "only applies to fortio pacing")
	}
}

// validateRamp checks the qps ramp and how it fits the rest of the run.
func (s Spec) validateRamp(p *problems) {
	r := s.Ramp
	if r == nil {
		return
	}
	checkRate(p, "ramp.from", r.From, false)
	checkRate(p, "ramp.to", r.To, true)
	checkDuration(p, "ramp.over", r.Over, MaxDuration)
	if r.Over > 0 && s.Duration > 0 && r.Over > s.Duration {
		p.add("ramp.over", "must be at most the duration (%s)", formatDuration(s.Duration.Std()))
	}
	if s.Pacing.Valid() && s.Pacing != PacingOpen {
		p.add("ramp", "requires open pacing")
	}
	if s.QPS != 0 && s.QPS != r.To {
		p.add("qps", "must be 0 or equal to ramp.to (%s) when a ramp is set", formatFloat(r.To))
	}
}

// validateRateAbort checks that abort_if_rate_not_held has a rate to hold.
func (s Spec) validateRateAbort(p *problems) {
	if !s.AbortIfRateNotHeld {
		return
	}
	if s.PeakQPS() <= 0 || s.Pacing == PacingClosed {
		p.add("abort_if_rate_not_held", "needs a target rate: qps > 0 or a ramp, and open or fortio pacing")
	}
}

// formatFloat writes v without exponent or trailing zeros: 1000000, 99.9.
func formatFloat(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// formatDuration writes d without zero trailing units: "24h", "5m", "10s".
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
