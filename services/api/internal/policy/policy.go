// Package policy is what this Barrage deployment allows one spec to ask
// for, on top of pkg/spec's absolute limits: the operator's caps on rate,
// connections, length, agents, headers and payload (docs/architecture.md §7). Stored tests
// and runs pass through the same check, so a test that was accepted can run.
// A project may lower the rate, connections, length and agents limits and
// cap its concurrent runs (Overrides).
//
// Targets is a project's target policy: its allow-list bounded by the
// organisation's (targets.go; docs/security.md, "Target policy").
//
// It is not the place for who may do what (package auth and the domain
// services) nor for the address rules themselves (pkg/netguard).
package policy

import (
	"errors"
	"fmt"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
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
	// MaxConcurrentRuns is the most runs one project may have queued,
	// dispatching, running or stopping at once.
	MaxConcurrentRuns int
}

// Default limits: well inside pkg/spec's absolute ones.
const (
	DefaultMaxQPS          = 100_000
	DefaultMaxConnections  = 1000
	DefaultMaxDuration     = time.Hour
	DefaultMaxAgents       = 100
	DefaultMaxHeaders      = 100
	DefaultMaxPayloadBytes = 1 << 20
	// DefaultMaxConcurrentRuns is per project.
	DefaultMaxConcurrentRuns = 1000
	// CapConcurrentRuns is the highest MaxConcurrentRuns a deployment may set.
	CapConcurrentRuns = 100_000
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
	if l.MaxConcurrentRuns == 0 {
		l.MaxConcurrentRuns = DefaultMaxConcurrentRuns
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
	if l.MaxConcurrentRuns <= 0 || l.MaxConcurrentRuns > CapConcurrentRuns {
		errs = append(errs, fmt.Errorf("max concurrent runs %d: must be from 1 to %d", l.MaxConcurrentRuns, CapConcurrentRuns))
	}
	return errors.Join(errs...)
}

// Check normalizes s and validates it against pkg/spec's rules and, when
// those pass, these limits. Problems come back as one apperr Invalid error whose field
// paths start with prefix ("spec").
func (l Limits) Check(s *spec.Spec, prefix string) error {
	return l.CheckProject(s, Overrides{}, prefix)
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
