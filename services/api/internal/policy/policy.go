// Package policy is what this Barrage deployment allows one spec to ask
// for, on top of pkg/spec's absolute limits: the operator's caps on rate,
// connections, length, agents, headers and payload (DESIGN §7). Stored tests
// and runs pass through the same check, so a test that was accepted can run.
//
// It is not the place for target allow-lists (a later issue adds them here)
// nor for who may do what (package auth and the domain services).
package policy

import (
	"errors"
	"fmt"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// Limits caps what one spec may ask for. Zero fields take the defaults of
// Normalize.
type Limits struct {
	// MaxQPS is the highest total target rate.
	MaxQPS float64
	// MaxConnections is the most connections in total.
	MaxConnections int
	// MaxDuration is the longest run length.
	MaxDuration time.Duration
	// MaxAgents is the most agents one run may use.
	MaxAgents int
	// MaxHeaders is the most request headers.
	MaxHeaders int
	// MaxPayloadBytes is the largest inline payload.
	MaxPayloadBytes int
}

// Default limits: well inside pkg/spec's absolute ones.
const (
	DefaultMaxQPS          = 100_000
	DefaultMaxConnections  = 1000
	DefaultMaxDuration     = time.Hour
	DefaultMaxAgents       = 100
	DefaultMaxHeaders      = 100
	DefaultMaxPayloadBytes = 1 << 20
)

// Normalize fills zero fields with the defaults.
func (l *Limits) Normalize() {
	if l.MaxQPS == 0 {
		l.MaxQPS = DefaultMaxQPS
	}
	if l.MaxConnections == 0 {
		l.MaxConnections = DefaultMaxConnections
	}
	if l.MaxDuration == 0 {
		l.MaxDuration = DefaultMaxDuration
	}
	if l.MaxAgents == 0 {
		l.MaxAgents = DefaultMaxAgents
	}
	if l.MaxHeaders == 0 {
		l.MaxHeaders = DefaultMaxHeaders
	}
	if l.MaxPayloadBytes == 0 {
		l.MaxPayloadBytes = DefaultMaxPayloadBytes
	}
}

// Validate checks that the limits are positive and inside pkg/spec's.
func (l Limits) Validate() error {
	var errs []error
	if l.MaxQPS <= 0 || l.MaxQPS > spec.MaxQPS {
		errs = append(errs, fmt.Errorf("max qps %v: must be above 0 and at most %v", l.MaxQPS, float64(spec.MaxQPS)))
	}
	if l.MaxConnections <= 0 || l.MaxConnections > spec.MaxConnections {
		errs = append(errs, fmt.Errorf("max connections %d: must be from 1 to %d", l.MaxConnections, spec.MaxConnections))
	}
	if l.MaxDuration <= 0 || l.MaxDuration > spec.MaxDuration {
		errs = append(errs, fmt.Errorf("max duration %v: must be above 0 and at most %v", l.MaxDuration, spec.MaxDuration))
	}
	if l.MaxAgents <= 0 || l.MaxAgents > spec.MaxAgents {
		errs = append(errs, fmt.Errorf("max agents %d: must be from 1 to %d", l.MaxAgents, spec.MaxAgents))
	}
	if l.MaxHeaders <= 0 || l.MaxHeaders > spec.MaxHeaders {
		errs = append(errs, fmt.Errorf("max headers %d: must be from 1 to %d", l.MaxHeaders, spec.MaxHeaders))
	}
	if l.MaxPayloadBytes <= 0 || l.MaxPayloadBytes > spec.MaxPayloadBytes {
		errs = append(errs, fmt.Errorf("max payload %d: must be from 1 to %d bytes", l.MaxPayloadBytes, spec.MaxPayloadBytes))
	}
	return errors.Join(errs...)
}

// Check normalizes s and validates it against pkg/spec's rules and, when
// those pass, these limits. Problems come back as one apperr Invalid error whose field
// paths start with prefix ("spec").
func (l Limits) Check(s *spec.Spec, prefix string) error {
	s.Normalize()
	var fields []apperr.FieldError
	if err := s.Validate(); err != nil {
		var ve *spec.ValidationError
		if !errors.As(err, &ve) {
			return fmt.Errorf("validate spec: %w", err)
		}
		for _, fe := range ve.Errors {
			fields = append(fields, apperr.FieldError{Field: join(prefix, fe.Field), Message: fe.Message})
		}
		return &apperr.Error{Code: apperr.Invalid, Detail: "the spec has invalid fields", Fields: fields}
	}
	add := func(field, format string, args ...any) {
		fields = append(fields, apperr.FieldError{Field: join(prefix, field), Message: fmt.Sprintf(format, args...)})
	}
	if s.PeakQPS() > l.MaxQPS {
		add("qps", "must be at most %v on this server", l.MaxQPS)
	}
	if s.Connections > l.MaxConnections {
		add("connections", "must be at most %d on this server", l.MaxConnections)
	}
	if s.RunFor() > l.MaxDuration {
		add("duration", "must be at most %v on this server", l.MaxDuration)
	}
	if s.Agents != nil && s.Agents.Count > l.MaxAgents {
		add("agents.count", "must be at most %d on this server", l.MaxAgents)
	}
	if len(s.Headers) > l.MaxHeaders {
		add("headers", "must have at most %d entries on this server", l.MaxHeaders)
	}
	if len(s.Payload) > l.MaxPayloadBytes {
		add("payload", "must be at most %d bytes on this server", l.MaxPayloadBytes)
	}
	if s.PayloadFile != "" {
		add("payload_file", "is for the agent CLI only; send the payload inline")
	}
	if len(fields) == 0 {
		return nil
	}
	return &apperr.Error{Code: apperr.Invalid, Detail: "the spec asks for more than this server allows", Fields: fields}
}

// join prefixes a field path; an empty field is the spec itself.
func join(prefix, field string) string {
	switch {
	case prefix == "":
		return field
	case field == "":
		return prefix
	default:
		return prefix + "." + field
	}
}
