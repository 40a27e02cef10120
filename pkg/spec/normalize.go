package spec

import "time"

// Defaults that Normalize applies. They follow Fortio's, so that a spec built
// from `fortio load` flags behaves like fortio.
const (
	// DefaultConnections is the connection count when none is given (Fortio -c).
	DefaultConnections = 8
	// DefaultDuration is the run length when neither count nor until_stopped
	// is given (Fortio -t).
	DefaultDuration = 5 * time.Second
	// DefaultTimeout is the per-request timeout (Fortio's HTTP default).
	DefaultTimeout = 3 * time.Second
	// DefaultUDPTimeout is the per-request timeout for udp:// (Fortio's UDP
	// default).
	DefaultUDPTimeout = 750 * time.Millisecond
)

// DefaultPercentiles returns the percentiles reported when none are given,
// as a new slice the caller may keep.
func DefaultPercentiles() []float64 {
	return []float64{50, 75, 90, 99, 99.9}
}

// Normalize fills every default in place; it is the only place defaults are
// applied. It never overwrites a value that is set, so it is idempotent and
// Validate still sees what the user asked for. Defaults that depend on the
// protocol (method, timeout, grpc mode) are applied only when the URL parses
// with a supported scheme.
func (s *Spec) Normalize() {
	if len(s.URLs) == 0 {
		s.URLs = nil
	} else {
		if s.URL == "" {
			s.URL = s.URLs[0]
		}
		if s.URLOrder == "" {
			s.URLOrder = URLRoundRobin
		}
	}
	if s.Scenario != nil {
		s.normalizeScenario()
	}
	s.normalizeRequests()
	if s.Connections == 0 {
		s.Connections = DefaultConnections
	}
	if s.Duration == 0 && s.Count == 0 && !s.UntilStopped {
		s.Duration = Duration(DefaultDuration)
		if d := s.StagesLength(); d > 0 {
			s.Duration = Duration(d)
		}
	}
	if s.Pacing == "" {
		s.Pacing = PacingClosed
		if s.QPS > 0 || s.Ramp != nil || len(s.Stages) > 0 {
			s.Pacing = PacingOpen
		}
	}
	if len(s.Percentiles) == 0 {
		s.Percentiles = DefaultPercentiles()
	}
	// Empty and absent are the same thing; keeping one form makes a
	// normalized spec survive a JSON round trip unchanged.
	if len(s.Headers) == 0 {
		s.Headers = nil
	}
	if len(s.Labels) == 0 {
		s.Labels = nil
	}
	if len(s.Stages) == 0 {
		s.Stages = nil
	}
	if s.Scenario != nil {
		return // no method, protocol or grpc defaults: the steps have their own
	}
	s.normalizeProtocol()
}

// normalizeProtocol fills the defaults that depend on the URL scheme.
func (s *Spec) normalizeProtocol() {
	switch s.Protocol() {
	case ProtocolHTTP:
		if s.Method == "" {
			s.Method = "GET"
			// Fortio switches to POST when there is a body or a content type.
			if s.HasPayload() || s.ContentType != "" {
				s.Method = "POST"
			}
		}
		s.defaultTimeout(DefaultTimeout)
	case ProtocolGRPC:
		s.normalizeGRPC()
		s.defaultTimeout(DefaultTimeout)
	case ProtocolTCP:
		s.defaultTimeout(DefaultTimeout)
	case ProtocolUDP:
		s.defaultTimeout(DefaultUDPTimeout)
	case ProtocolUnknown:
		// Validate reports the URL; a timeout default still helps the rest
		// of the report stay about real problems.
		s.defaultTimeout(DefaultTimeout)
	}
}

// normalizeGRPC fills the grpc block's mode (health, or method when a
// method is named) and streams (1).
func (s *Spec) normalizeGRPC() {
	var g GRPC
	if s.GRPC != nil {
		g = *s.GRPC
	}
	if g.Mode == "" {
		g.Mode = GRPCHealth
		if g.Method != "" {
			g.Mode = GRPCMethod
		}
	}
	if g.Streams == 0 {
		g.Streams = 1
	}
	if s.GRPC == nil || g != *s.GRPC {
		// A new block, so that a shallow copy of s is not changed too.
		s.GRPC = &g
	}
}

// defaultTimeout sets the timeout to d when it is unset.
func (s *Spec) defaultTimeout(d time.Duration) {
	if s.Timeout == 0 {
		s.Timeout = Duration(d)
	}
}
