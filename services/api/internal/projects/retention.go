package projects

import (
	"fmt"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// MaxRetentionDays is the longest retention a project may set: a hundred
// years, which is forever in practice.
const MaxRetentionDays = 36500

// Retention is how long a project keeps its runs' data, in days from a
// run's creation (migration 00020); nil keeps it forever. Pinned runs
// keep everything, and runs that are a baseline are not dropped (package
// retention applies it).
type Retention struct {
	// IntervalDays drops a run's per-second intervals and shard
	// snapshots, keeping its summary and merged result.
	IntervalDays *int
	// RunDays drops whole runs.
	RunDays *int
}

// Validate returns a field error, under prefix, for each day count that is
// not from 1 to MaxRetentionDays. An interval retention longer than the
// run retention is allowed: the runs go first.
func (r Retention) Validate(prefix string) []apperr.FieldError {
	var out []apperr.FieldError
	check := func(name string, v *int) {
		if v != nil && (*v < 1 || *v > MaxRetentionDays) {
			out = append(out, apperr.FieldError{
				Field:   prefix + "." + name,
				Message: fmt.Sprintf("must be a whole number of days from 1 to %d, or null to keep forever; got %d", MaxRetentionDays, *v),
			})
		}
	}
	check("interval_retention_days", r.IntervalDays)
	check("run_retention_days", r.RunDays)
	return out
}
