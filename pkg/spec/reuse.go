package spec

// ConnectionReuse is Fortio's -connection-reuse min:max: each new HTTP/1.1
// connection is closed after a number of requests drawn uniformly from
// [Min, Max], so a run reconnects at a steady random pace. 1:1 opens a new
// connection for every request.
type ConnectionReuse struct {
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// validateConnectionReuse checks connection_reuse; h11 says the run uses
// the agent's own HTTP/1.1 client.
func (s Spec) validateConnectionReuse(p *problems, h11 bool) {
	r := s.ConnectionReuse
	switch {
	case r == nil:
	case r.Min < 1 || r.Max < r.Min || r.Max > MaxCount:
		p.add("connection_reuse", "must be min:max with 1 <= min <= max <= %d", MaxCount)
	case !h11:
		p.add("connection_reuse", "only applies to HTTP/1.1: http and https URLs without h2 or h3")
	case s.FollowRedirects:
		p.add("connection_reuse", "cannot be combined with follow_redirects")
	case s.MaxRequestsPerConnection != 0:
		p.add("connection_reuse", "give connection_reuse or max_requests_per_connection, not both")
	}
}
