package echofault

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MinStatus and MaxStatus bound the status codes the echo server may be asked
// for. 1xx codes are interim responses, not answers: a reply of only "103"
// would leave the client waiting for the final one.
const (
	MinStatus = 200
	MaxStatus = 599
)

// ParseDelay parses a delay: a duration ("150ms") or a list ("10ms:50,1s:0.5").
// Each duration is clamped to [0, limit].
func ParseDelay(s string, limit time.Duration) (Dist[time.Duration], error) {
	return parseList(s, func(v string) (time.Duration, error) {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("delay %q: want a duration such as 150ms: %w", v, ErrSyntax)
		}
		return min(d, limit), nil
	})
}

// ParseStatus parses a status: a code ("503") or a list ("503:20,429:5").
func ParseStatus(s string) (Dist[int], error) {
	return parseList(s, func(v string) (int, error) {
		code, err := strconv.Atoi(v)
		if err != nil || code < MinStatus || code > MaxStatus {
			return 0, fmt.Errorf("status %q: want a code from %d to %d: %w", v, MinStatus, MaxStatus, ErrSyntax)
		}
		return code, nil
	})
}

// ParseSize parses a reply size in bytes: "1024" or a list ("0:10,65536:5").
// Each size is clamped to [0, limit].
func ParseSize(s string, limit int) (Dist[int], error) {
	return parseList(s, func(v string) (int, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("size %q: want a byte count: %w", v, ErrSyntax)
		}
		return min(n, limit), nil
	})
}

// ParseChance parses the close and gzip parameters: "true" (100 %), "false" (0 %)
// or a percentage ("25", "25%").
func ParseChance(s string) (float64, error) {
	switch s {
	case "true":
		return 100, nil
	case "false":
		return 0, nil
	}
	return ParsePercent(s)
}

// ParseHeader parses a header parameter "Name:Value". The name must be a valid
// header token and neither may contain control characters.
func ParseHeader(s string) (name, value string, err error) {
	name, value, found := strings.Cut(s, ":")
	if !found || !validToken(name) || !validValue(value) {
		return "", "", fmt.Errorf("header %q: want Name:Value: %w", s, ErrSyntax)
	}
	return name, strings.TrimSpace(value), nil
}

func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

func validValue(s string) bool {
	for i := range len(s) {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
