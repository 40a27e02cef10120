// Package searches finds the capacity of a target: the highest qps at which
// an objective ("p(99) < 50ms and error_rate < 0.1%", the threshold grammar
// of pkg/threshold) still holds. A search is a sequence of short runs, one
// per step, each judged on the per-second rows merged across all its shards
// after its warm-up, with the response time (corrected for coordinated
// omission) of the open-loop pacing: an exponential probe from the lowest
// rate, then a binary search to a resolution. Each step is an ordinary run,
// so a search works for every protocol a run does.
//
// A search is a state machine in Postgres driven by whichever API replica
// holds its lease; when that process dies another resumes it from the
// stored steps (resume.go, docs/capacity-search.md).
//
// It owns the rules of searches and drives them; it does not execute load
// (the runs and their agents do) nor store rows (the store does).
package searches

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
)

// Status is where a search is.
type Status string

// Search statuses.
const (
	Running   Status = "running"
	Completed Status = "completed"
	Canceled  Status = "canceled"
	// Failed is a search that could not go on: a step's run failed, or it
	// could not be resumed (docs/capacity-search.md).
	Failed Status = "failed"
)

// Outcome is what a completed search found.
type Outcome string

// Outcomes.
const (
	// Found: a rate met the objective and a higher one failed it.
	Found Outcome = "found"
	// NotMet: even the lowest rate failed the objective.
	NotMet Outcome = "not_met"
	// AboveMax: the highest rate met it; the capacity is above the bounds.
	AboveMax Outcome = "above_max"
)

// StepStatus is the state of one step.
type StepStatus string

// Step statuses.
const (
	StepRunning StepStatus = "running"
	StepPassed  StepStatus = "passed"
	StepFailed  StepStatus = "failed"
	// StepError is a step whose run did not complete.
	StepError StepStatus = "error"
)

// Search is one capacity search.
type Search struct {
	ID        uuid.UUID
	ProjectID uuid.UUID
	Name      string
	// Spec is the base spec, redacted; each step runs it at its own qps
	// for Warmup + Step.
	Spec       spec.Spec
	Objective  string
	MinQPS     float64
	MaxQPS     float64
	Step       time.Duration
	Warmup     time.Duration
	Resolution float64
	Status     Status
	Outcome    Outcome
	// BestQPS is the highest rate that met the objective, FirstFailQPS the
	// lowest that failed it; nil when there is none.
	BestQPS      *float64
	FirstFailQPS *float64
	// Message says what the search found or why it stopped, for people.
	Message    string
	CreatedBy  uuid.UUID
	CreatedAt  time.Time
	UpdatedAt  time.Time
	FinishedAt time.Time
	// Steps are in order; GetSearch fills them, lists do not.
	Steps []Step
}

// Cursor is the search's position in a list.
func (s Search) Cursor() paging.Cursor { return paging.Cursor{CreatedAt: s.CreatedAt, ID: s.ID} }

// Step is one run of a search and its figures over the seconds after the
// warm-up, merged across every shard.
type Step struct {
	Index  int
	QPS    float64
	RunID  uuid.UUID
	Status StepStatus
	Count  int64
	Errors int64
	// AchievedQPS is Count over the measured seconds.
	AchievedQPS float64
	// P50US ... MaxUS are of the response time, in microseconds.
	P50US, P90US, P99US, MaxUS float64
	// Outcomes is the objective's terms evaluated on the step.
	Outcomes []threshold.Outcome
	// Detail says why a step failed or erred, for people.
	Detail     string
	StartedAt  time.Time
	FinishedAt time.Time
}

// Filter selects searches for a list.
type Filter struct {
	ProjectIDs  []uuid.UUID
	AllProjects bool
	Page        paging.Request
}

// Store is the storage searches need.
type Store interface {
	// CreateSearch inserts a new search (without steps) driven by driver
	// under a lease of lease; full is its base spec with its secrets,
	// which the store keeps sealed (s.Spec is the redacted one).
	CreateSearch(ctx context.Context, s Search, full spec.Spec, driver uuid.UUID, lease time.Duration) error
	// GetSearch returns a search and its steps; NotFound when there is none.
	GetSearch(ctx context.Context, id uuid.UUID) (Search, error)
	// SearchSpec returns the real base spec of a search; NotFound for a
	// search stored without one (before it could be resumed).
	SearchSpec(ctx context.Context, id uuid.UUID) (spec.Spec, error)
	// ListSearches returns up to f.Page.Limit+1 searches, newest first,
	// without steps.
	ListSearches(ctx context.Context, f Filter) ([]Search, error)
	// SaveStep inserts or replaces a step of a search and touches the
	// search's updated_at.
	SaveStep(ctx context.Context, searchID uuid.UUID, st Step) error
	// EndSearch writes the end of a search (status, outcome, figures,
	// message, finished_at) if it is still running; false when it was not.
	EndSearch(ctx context.Context, s Search) (bool, error)
	// ClaimSearches gives driver the lease (of lease) of up to limit
	// running searches whose lease ended, and returns their ids; two
	// replicas claiming at once never get the same search.
	ClaimSearches(ctx context.Context, driver uuid.UUID, lease time.Duration, limit int) ([]uuid.UUID, error)
	// RenewSearch extends driver's lease of a running search by lease;
	// false when it is no longer running or another driver holds it.
	RenewSearch(ctx context.Context, id, driver uuid.UUID, lease time.Duration) (bool, error)
	// ReleaseSearch ends driver's lease of a running search now.
	ReleaseSearch(ctx context.Context, id, driver uuid.UUID) error
	// UserPrincipal returns a user acting on their own account with their
	// current roles; NotFound when the user is gone, Forbidden when
	// disabled.
	UserPrincipal(ctx context.Context, user uuid.UUID) (*auth.Principal, error)
	// FailStaleSearches ends as failed, with message, the running searches
	// without a lease (stored before searches could be resumed) not
	// touched since before; it returns how many.
	FailStaleSearches(ctx context.Context, before time.Time, message string) (int, error)
}
