package policy

import (
	"errors"
	"fmt"
	"time"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// Overrides are one project's own limits, each nil for the deployment's.
// A project may only lower the deployment's limits (Validate).
type Overrides struct {
	// MaxQPS caps the total target rate of a run.
	MaxQPS *float64
	// MaxConnections caps the connections of a run.
	MaxConnections *int
	// MaxDuration caps the length of a run; whole seconds.
	MaxDuration *time.Duration
	// MaxAgents caps the agents of a run.
	MaxAgents *int
	// MaxConcurrentRuns caps the project's runs that are queued,
	// dispatching, running or stopping at once.
	MaxConcurrentRuns *int
}

// The API names of the limits a project may set.
const (
	FieldMaxQPS            = "max_qps"
	FieldMaxConnections    = "max_connections"
	FieldMaxDuration       = "max_duration"
	FieldMaxAgents         = "max_agents"
	FieldMaxConcurrentRuns = "max_concurrent_runs"
)

// Set returns the API names of the limits o sets, in a fixed order.
func (o Overrides) Set() []string {
	set := []string{}
	add := func(isSet bool, name string) {
		if isSet {
			set = append(set, name)
		}
	}
	add(o.MaxQPS != nil, FieldMaxQPS)
	add(o.MaxConnections != nil, FieldMaxConnections)
	add(o.MaxDuration != nil, FieldMaxDuration)
	add(o.MaxAgents != nil, FieldMaxAgents)
	add(o.MaxConcurrentRuns != nil, FieldMaxConcurrentRuns)
	return set
}

// Apply returns l with each limit o sets in place of l's, when it is lower
// (a deployment limit lowered after a project set its own still binds).
func (l Limits) Apply(o Overrides) Limits {
	lower := func(dst *int, v *int) {
		if v != nil && *v < *dst {
			*dst = *v
		}
	}
	if o.MaxQPS != nil && *o.MaxQPS < l.MaxQPS {
		l.MaxQPS = *o.MaxQPS
	}
	lower(&l.MaxConnections, o.MaxConnections)
	if o.MaxDuration != nil && *o.MaxDuration < l.MaxDuration {
		l.MaxDuration = *o.MaxDuration
	}
	lower(&l.MaxAgents, o.MaxAgents)
	lower(&l.MaxConcurrentRuns, o.MaxConcurrentRuns)
	return l
}

// Validate checks that each limit o sets is above 0 and at most l's, and
// that MaxDuration is whole seconds. Field paths start with prefix
// ("limits").
func (o Overrides) Validate(l Limits, prefix string) []apperr.FieldError {
	var fields []apperr.FieldError
	add := func(field, format string, args ...any) {
		fields = append(fields, apperr.FieldError{Field: join(prefix, field), Message: fmt.Sprintf(format, args...)})
	}
	count := func(field string, v *int, limit int) {
		if v != nil && (*v <= 0 || *v > limit) {
			add(field, "must be from 1 to %d, this server's limit", limit)
		}
	}
	if o.MaxQPS != nil && (*o.MaxQPS <= 0 || *o.MaxQPS > l.MaxQPS) {
		add(FieldMaxQPS, "must be above 0 and at most %v, this server's limit", l.MaxQPS)
	}
	count(FieldMaxConnections, o.MaxConnections, l.MaxConnections)
	if d := o.MaxDuration; d != nil {
		switch {
		case *d <= 0 || *d > l.MaxDuration:
			add(FieldMaxDuration, "must be above 0 and at most %v, this server's limit", l.MaxDuration)
		case *d%time.Second != 0:
			add(FieldMaxDuration, "must be a whole number of seconds")
		}
	}
	count(FieldMaxAgents, o.MaxAgents, l.MaxAgents)
	count(FieldMaxConcurrentRuns, o.MaxConcurrentRuns, l.MaxConcurrentRuns)
	return fields
}

// CheckProject is Check for a spec of a project with overrides o: a spec
// over a limit the project sets gets a field error that says so and names
// the project's value; one over a limit of the server says "on this server".
func (l Limits) CheckProject(s *spec.Spec, o Overrides, prefix string) error {
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
	eff := l.Apply(o)
	byProject := false
	add := func(field, format string, args ...any) {
		fields = append(fields, apperr.FieldError{Field: join(prefix, field), Message: fmt.Sprintf(format, args...)})
	}
	over := func(field string, projects bool, limit any) {
		if projects {
			byProject = true
			add(field, "must be at most %v, this project's limit", limit)
			return
		}
		add(field, "must be at most %v on this server", limit)
	}
	if s.PeakQPS() > eff.MaxQPS {
		over("qps", eff.MaxQPS < l.MaxQPS, eff.MaxQPS)
	}
	if s.Connections > eff.MaxConnections {
		over("connections", eff.MaxConnections < l.MaxConnections, eff.MaxConnections)
	}
	if s.RunFor() > eff.MaxDuration {
		over("duration", eff.MaxDuration < l.MaxDuration, eff.MaxDuration)
	}
	if s.Agents != nil && s.Agents.Count > eff.MaxAgents {
		over("agents.count", eff.MaxAgents < l.MaxAgents, eff.MaxAgents)
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
	detail := "the spec asks for more than this server allows"
	if byProject {
		detail = "the spec asks for more than this project allows"
	}
	return &apperr.Error{Code: apperr.Invalid, Detail: detail, Fields: fields}
}
