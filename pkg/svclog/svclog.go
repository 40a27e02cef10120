// Package svclog builds the structured logger of every Barrage binary
// from its environment: JSON lines by default, text with
// BARRAGE_LOG_FORMAT=text (docs/architecture.md §8).
//
// It is not the place for what gets logged (each service decides) nor for
// request logs (barrage-api's reqlog).
package svclog

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// FormatVar is the environment variable that picks the log format.
const FormatVar = "BARRAGE_LOG_FORMAT"

// New returns a logger writing to w at level, in the format environ's
// BARRAGE_LOG_FORMAT names: "json" (or unset) or "text"; any other value
// is an error.
func New(w io.Writer, level slog.Level, environ []string) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format := Lookup(environ, FormatVar); format {
	case "", "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	default:
		return nil, fmt.Errorf("%s %q: must be json or text", FormatVar, format)
	}
}

// Lookup returns the last value of key in environ ("NAME=value" entries),
// "" when unset.
func Lookup(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}
