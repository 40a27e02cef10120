package wire

// RequestIDHeader is the NATS message header of an assignment that carries
// the id of the barrage-api request that created its run (its
// X-Request-Id), so that the agent's log lines for the shard can be found
// from the API's (docs/observability.md, "Following a run across
// processes"). Runs no request created (scheduled ones, search steps)
// have none.
const RequestIDHeader = "Barrage-Request-Id"

// MaxRequestIDLen is the longest request id kept.
const MaxRequestIDLen = 64

// ValidRequestID reports whether a request id may be kept: 1 to
// MaxRequestIDLen characters of A-Z, a-z, 0-9, '.', '_' and '-'. Anything
// else could forge log lines or bloat them.
func ValidRequestID(id string) bool {
	if id == "" || len(id) > MaxRequestIDLen {
		return false
	}
	for i := range len(id) {
		switch b := id[i]; {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9', b == '.', b == '_', b == '-':
		default:
			return false
		}
	}
	return true
}
