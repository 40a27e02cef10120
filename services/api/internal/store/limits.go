package store

import (
	"time"

	"github.com/barrage-dev/barrage/services/api/internal/policy"
)

// limitColumns are a project's own limits (migration 00007); NULL is the
// deployment's.
type limitColumns struct {
	MaxQPS             *float64 `gorm:"column:max_qps"`
	MaxConnections     *int     `gorm:"column:max_connections"`
	MaxDurationSeconds *int64   `gorm:"column:max_duration_seconds"`
	MaxAgents          *int     `gorm:"column:max_agents"`
	MaxConcurrentRuns  *int     `gorm:"column:max_concurrent_runs"`
}

// limitsToColumns maps a project's limits to their columns; the duration
// is whole seconds (policy.Overrides.Validate).
func limitsToColumns(o policy.Overrides) limitColumns {
	lc := limitColumns{MaxQPS: o.MaxQPS, MaxConnections: o.MaxConnections, MaxAgents: o.MaxAgents, MaxConcurrentRuns: o.MaxConcurrentRuns}
	if o.MaxDuration != nil {
		sec := int64(*o.MaxDuration / time.Second)
		lc.MaxDurationSeconds = &sec
	}
	return lc
}

// overrides maps the columns back to a project's limits.
func (lc limitColumns) overrides() policy.Overrides {
	o := policy.Overrides{MaxQPS: lc.MaxQPS, MaxConnections: lc.MaxConnections, MaxAgents: lc.MaxAgents, MaxConcurrentRuns: lc.MaxConcurrentRuns}
	if lc.MaxDurationSeconds != nil {
		d := time.Duration(*lc.MaxDurationSeconds) * time.Second
		o.MaxDuration = &d
	}
	return o
}

// audit returns the limits as an audit entry shows them: each by its API
// name, null for the deployment's.
func (lc limitColumns) audit() map[string]any {
	var dur any
	if lc.MaxDurationSeconds != nil {
		dur = (time.Duration(*lc.MaxDurationSeconds) * time.Second).String()
	}
	return map[string]any{
		policy.FieldMaxQPS: lc.MaxQPS, policy.FieldMaxConnections: lc.MaxConnections, policy.FieldMaxDuration: dur,
		policy.FieldMaxAgents: lc.MaxAgents, policy.FieldMaxConcurrentRuns: lc.MaxConcurrentRuns,
	}
}
