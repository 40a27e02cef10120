// Package servertime reads the latency a target reports about itself from the
// value of a response header (the agent's -latency-header, Nighthawk's
// --latency-response-header-name). It parses bytes in place and allocates
// nothing, so the HTTP/1.1 client can call it on its hot path. It does not
// know which header to read nor record anything: the clients and the engine do.
//
// Accepted values:
//   - Server-Timing (W3C): "app;dur=12.3, db;dur=4": the dur of the first
//     metric that has one, in milliseconds.
//   - A plain number, "1234" or "1234.5": microseconds (barrage-echo's
//     -server-time-header).
//   - A number with a unit, "12.3ms", "1234us", "1234µs", "900ns", "0.5s".
//
// Anything else (empty, negative, junk, no dur) is no sample.
package servertime

import (
	"bytes"
	"math"
	"time"
)

// maxDigits bounds the digits of a number (integer and fraction together):
// more than float64 holds exactly is junk, not a latency.
const maxDigits = 18

// Parse returns the latency in value, and false when value holds none.
func Parse(value []byte) (time.Duration, bool) {
	value = bytes.TrimSpace(value)
	if bytes.IndexByte(value, '=') >= 0 || bytes.IndexByte(value, ';') >= 0 {
		return serverTiming(value)
	}
	n, rest, ok := number(value)
	if !ok {
		return 0, false
	}
	unit, ok := unitOf(bytes.TrimSpace(rest))
	if !ok {
		return 0, false
	}
	return toDuration(n * float64(unit))
}

// serverTiming returns the dur of the first metric of a Server-Timing value
// that has one, in milliseconds.
func serverTiming(v []byte) (time.Duration, bool) {
	for len(v) > 0 {
		var metric []byte
		metric, v = cut(v, ',')
		_, params := cut(metric, ';') // the metric name
		for len(params) > 0 {
			var p []byte
			p, params = cut(params, ';')
			name, val := cut(p, '=')
			if !EqualFold(bytes.TrimSpace(name), "dur") {
				continue
			}
			val = bytes.TrimSpace(val)
			if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
				val = val[1 : len(val)-1]
			}
			n, rest, ok := number(val)
			if !ok || len(rest) > 0 {
				return 0, false
			}
			return toDuration(n * float64(time.Millisecond))
		}
	}
	return 0, false
}

// cut splits b at the first sep; after is empty when there is none.
func cut(b []byte, sep byte) (before, after []byte) {
	if i := bytes.IndexByte(b, sep); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// number parses an unsigned decimal ("12", "12.5", ".5") at the start of b
// and returns it with the bytes after it.
func number(b []byte) (v float64, rest []byte, ok bool) {
	var mant uint64
	digits, frac, i := 0, 0, 0
	dot := false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if digits > maxDigits {
				return 0, nil, false
			}
			mant = mant*10 + uint64(c-'0')
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return scaled(mant, frac), b[i:], digits > 0
		}
	}
	return scaled(mant, frac), nil, digits > 0
}

// scaled returns mant / 10^frac.
func scaled(mant uint64, frac int) float64 {
	return float64(mant) / math.Pow10(frac)
}

// unitOf returns the duration of one unit of u; no unit is microseconds.
func unitOf(u []byte) (time.Duration, bool) {
	switch {
	case len(u) == 0, EqualFold(u, "us"), string(u) == "µs":
		return time.Microsecond, true
	case EqualFold(u, "ms"):
		return time.Millisecond, true
	case EqualFold(u, "ns"):
		return time.Nanosecond, true
	case EqualFold(u, "s"):
		return time.Second, true
	}
	return 0, false
}

// toDuration converts nanoseconds to a Duration; out of range is no sample.
func toDuration(ns float64) (time.Duration, bool) {
	if ns < 0 || ns >= math.MaxInt64 || math.IsNaN(ns) {
		return 0, false
	}
	return time.Duration(math.Round(ns)), true
}

// EqualFold reports whether b equals the lower-case ASCII string s, ignoring
// ASCII case, without allocating: for header names and tokens on the
// HTTP/1.1 client's hot path as well as this package's units.
func EqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
