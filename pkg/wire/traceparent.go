package wire

// TraceParentHeader is the NATS message header of an assignment that
// carries the W3C Trace Context traceparent of the API's dispatch span
// when barrage-api exports traces (docs/observability.md, "Traces"); the
// agent logs its trace id as trace_id in its log lines for the shard.
const TraceParentHeader = "traceparent"

// TraceIDOf returns the trace id of a W3C traceparent
// ("00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>"): 32 lowercase
// hex digits, not all zero. ok is false for anything else, which is then
// not logged (the header comes from the network). A version above 00 may
// append fields after the flags; version ff is invalid.
func TraceIDOf(tp string) (id string, ok bool) {
	const n = 55 // version 00's length
	if len(tp) < n || (len(tp) > n && (tp[:2] == "00" || tp[n] != '-')) {
		return "", false
	}
	if tp[2] != '-' || tp[35] != '-' || tp[52] != '-' || tp[:2] == "ff" {
		return "", false
	}
	version, trace, parent, flags := tp[:2], tp[3:35], tp[36:52], tp[53:55]
	if !lowerHex(version) || !lowerHex(trace) || !lowerHex(parent) || !lowerHex(flags) || allZero(trace) || allZero(parent) {
		return "", false
	}
	return trace, true
}

func lowerHex(s string) bool {
	for i := range len(s) {
		if b := s[i]; (b < '0' || b > '9') && (b < 'a' || b > 'f') {
			return false
		}
	}
	return true
}

func allZero(s string) bool {
	for i := range len(s) {
		if s[i] != '0' {
			return false
		}
	}
	return true
}
