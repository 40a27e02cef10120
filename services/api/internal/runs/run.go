// Package runs owns the rules of runs: who may start and stop them, how a
// run is built from a stored test or an inline spec, the status machine,
// idempotent creation, the API's limits on what one run may ask for, and
// listing with filters. It declares the Store it needs; internal/store
// implements it on Postgres.
//
// It is not the place for executing runs (agents do), dispatching them
// (the dispatcher reads the outbox rows this package has written), or for
// HTTP (httpapi maps these types to the wire).
package runs

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
)

// Source says where a run came from.
type Source string

// Run sources.
const (
	SourceUI       Source = "ui"
	SourceAPI      Source = "api"
	SourceSchedule Source = "schedule"
	SourceImport   Source = "import"
	SourceSync     Source = "sync"
)

// Run is one execution of a spec.
type Run struct {
	ID        uuid.UUID
	ProjectID uuid.UUID
	// TestID is the stored test the run came from, or uuid.Nil.
	TestID uuid.UUID
	Name   string
	Status Status
	// Verdict is "", "pass", "fail" or "error" (see Verdict*).
	Verdict string
	// VerdictNote qualifies the verdict: the load generator was the
	// bottleneck for some of the run's seconds (Finish.VerdictNote); "".
	VerdictNote string
	Source      Source
	// Spec is the spec the run executes, with secrets redacted.
	Spec       spec.Spec
	Thresholds []string
	Labels     map[string]string
	// Target is the spec's URL with credentials removed.
	Target       string
	QPSRequested float64
	// CreatedBy is the user who started the run, or uuid.Nil.
	CreatedBy uuid.UUID
	CreatedAt time.Time
	UpdatedAt time.Time
	// StartedAt and EndedAt are zero until the run starts and ends.
	StartedAt time.Time
	EndedAt   time.Time
	// Error says why a run failed.
	Error string
	// StartAt and Deadline bound the shards' sending; zero until dispatched.
	StartAt  time.Time
	Deadline time.Time
	// ShardCount is the number of shards the run was split into.
	ShardCount int
	// Degraded is set when a shard was lost and the result lacks its part.
	Degraded bool
	// Summary is nil until the run has results.
	Summary *Summary
	// ThresholdResults is the outcome of each threshold, in the order of
	// Thresholds; nil until the run was judged (and for canceled runs).
	ThresholdResults []threshold.Outcome
	// BaselineRunID is the run the baseline forms were compared with, or
	// uuid.Nil.
	BaselineRunID uuid.UUID
	// Seq numbers runs in creation order, across projects; it is the run
	// number in Fortio result IDs. 0 until stored.
	Seq int64
	// AllowPartial judges a run that lost a shard by its thresholds rather
	// than giving it verdict error.
	AllowPartial bool
	// BaselineRequest is the baseline run the caller asked for, or
	// uuid.Nil for the last passing run of the test.
	BaselineRequest uuid.UUID
	// BaselineLast, when above 0, asks for the last BaselineLast passing
	// runs of the test, pooled, as the baseline (docs/verdicts.md).
	BaselineLast int
	// BaselinePool is what was pooled when the run was judged; nil for a
	// run that asked for no pool, or before it was judged.
	BaselinePool *BaselinePool
	// AbortedBy is the abort threshold that stopped the run, or "".
	AbortedBy string
	// EchoProfile is the profile active on the managed echo the run
	// targeted when it was submitted; nil when none.
	EchoProfile *EchoProfile
	// Pinned keeps the run from retention and from a delete without force.
	Pinned bool
	// IntervalsDroppedAt is when retention dropped the run's per-second
	// rows (its summary and result stay); zero while they are kept.
	IntervalsDroppedAt time.Time
}

// EchoProfile is a managed echo's active profile as a run records it.
type EchoProfile struct {
	Echo      string `json:"echo"`
	ProfileID string `json:"profile_id"`
	Name      string `json:"name"`
	Content   string `json:"content"`
}

// EchoLookup finds the profile active on the managed echo of a project
// that answers on a target; best effort, nil when there is none or the
// registry cannot be read.
type EchoLookup interface {
	ProfileAt(ctx context.Context, proj projects.Project, target string) *EchoProfile
}

// Imported reports whether the run came from a Fortio document rather than
// from agents.
func (r Run) Imported() bool { return r.Source == SourceImport || r.Source == SourceSync }

// Summary is the merged figures of a run; latencies in microseconds.
type Summary struct {
	Count  int64
	Errors int64
	QPS    float64
	MinUS  float64
	AvgUS  float64
	P50US  float64
	P90US  float64
	P99US  float64
	MaxUS  float64
}

// Cursor returns the run's position in a list.
func (r Run) Cursor() paging.Cursor {
	return paging.Cursor{CreatedAt: r.CreatedAt, ID: r.ID}
}

// Filter selects runs for a list. Every set field must match.
type Filter struct {
	// ProjectIDs limits the list to these projects; nil with AllProjects
	// means every project.
	ProjectIDs  []uuid.UUID
	AllProjects bool
	// TestID limits the list to one stored test; uuid.Nil for any.
	TestID uuid.UUID
	// Statuses keeps runs in one of these statuses; empty for any.
	Statuses []Status
	// Labels keeps runs carrying every one of these labels.
	Labels map[string]string
	// Since and Until bound created_at: Since <= created_at < Until; zero
	// for no bound.
	Since time.Time
	Until time.Time
	// Page is the page wanted. The store returns up to Page.Limit+1 rows so
	// the caller can tell whether another page follows.
	Page paging.Request
}

// Idempotency ties a creation request to its key.
type Idempotency struct {
	// Key is the client's Idempotency-Key; empty for none.
	Key string
	// RequestHash is SHA-256 of the canonical request.
	RequestHash []byte
}

// NewRun is a run to insert with everything written in the same transaction.
type NewRun struct {
	// Run is the row; its status is Queued.
	Run Run
	// Dispatch is the outbox payload the dispatcher publishes: the
	// unredacted spec and the run's identity, as JSON.
	Dispatch []byte
	// Idempotency is checked and recorded in the same transaction.
	Idempotency Idempotency
	// MaxActive, when above 0, is the most runs of the project that may be
	// active (not Terminal) with this one counted; the store refuses the
	// run with ConcurrencyError(MaxActive) past it. A replayed request
	// returns its run and counts nothing.
	MaxActive int
	// Actor is written to the audit log.
	Actor auth.Actor
}

// ConcurrencyRetry is how long a caller refused by ConcurrencyError is
// told to wait before trying again.
const ConcurrencyRetry = 10 * time.Second

// ConcurrencyError is the answer to a run that would take its project past
// limit active runs.
func ConcurrencyError(limit int) error {
	return &apperr.Error{
		Code: apperr.QuotaExceeded, RetryAfter: ConcurrencyRetry,
		Detail: fmt.Sprintf("the project already has %d runs queued or in progress, its limit (max_concurrent_runs); "+
			"retry when one has finished", limit),
	}
}

// Move is a status change.
type Move struct {
	// RunID is the run to change.
	RunID uuid.UUID
	// To is the new status; the change applies only when the run is in From(To).
	To Status
	// Error is stored with a Failed status.
	Error string
	// At is the time of the change: started_at for Running, ended_at for
	// terminal statuses.
	At time.Time
	// Control, when set, is an outbox payload written in the same
	// transaction (a stop for the agents).
	Control []byte
	// AbortedBy, when set, records the abort threshold that stopped the run.
	AbortedBy string
	// Actor is written to the audit log.
	Actor auth.Actor
}

// Store is the storage runs need.
type Store interface {
	// CreateRun inserts n in one transaction: the idempotency key (when
	// set), the run, its outbox row and an audit entry. When the key was
	// used before with the same RequestHash it returns that run and
	// created=false; with another hash, a Conflict. It enforces
	// n.MaxActive race-free: concurrent creations in one project are
	// serialized.
	CreateRun(ctx context.Context, n NewRun) (run Run, created bool, err error)
	// GetRun returns a run by id; NotFound when there is none.
	GetRun(ctx context.Context, id uuid.UUID) (Run, error)
	// RunBySeq returns the run numbered seq and whether its project
	// publishes its results; NotFound when there is none.
	RunBySeq(ctx context.Context, seq int64) (Run, bool, error)
	// ListRuns returns up to f.Page.Limit+1 runs matching f, newest first.
	ListRuns(ctx context.Context, f Filter) ([]Run, error)
	// MoveRun applies m when the run's status is in From(m.To) and returns
	// the run after the change; a Conflict when the status was elsewhere,
	// NotFound when there is no such run.
	MoveRun(ctx context.Context, m Move) (Run, error)
	// DeleteRun deletes a terminal run and every row keyed by it in one
	// transaction and writes an audit entry; see Delete for the checks.
	DeleteRun(ctx context.Context, d Deletion) error
	// RunBaselineOf returns how many other runs compared with the run as
	// their baseline (or asked for it), and whether it is the newest
	// passing run of its test, which the test's next run compares with.
	RunBaselineOf(ctx context.Context, id uuid.UUID) (BaselineUse, error)
	// SetRunPinned pins or unpins a run, writes an audit entry and returns
	// the run after the change; NotFound when there is none.
	SetRunPinned(ctx context.Context, id uuid.UUID, pinned bool, actor auth.Actor) (Run, error)
	// WrittenURLCount returns the written URLs stored for a run.
	WrittenURLCount(ctx context.Context, runID uuid.UUID) (int64, error)
	// WrittenURLs returns up to limit written URLs of a run after the one
	// at after (the zero key: from the first), in order.
	WrittenURLs(ctx context.Context, runID uuid.UUID, after WrittenURLKey, limit int) ([]WrittenURL, error)
}
