// Package resultsync keeps a project's results in step with other places
// that hold Fortio results: Barrage and Fortio servers (index.tsv) and S3
// or GCS buckets (ListObjects v1 and v2 XML). It owns sync sources, runs a
// sync (list, fetch through the SSRF-safe client, verify size and MD5,
// dedupe by URL and MD5, import), records each object's outcome, and runs
// the due sources on their interval.
//
// It is not the place for parsing the formats (pkg/fortiojson,
// pkg/objlisting), for turning a document into a run (package imports) or
// for deciding which addresses may be reached (package netguard).
package resultsync

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// Kind is what a source's URL serves.
type Kind string

// Kinds of source.
const (
	KindAuto Kind = "auto"
	KindTSV  Kind = "tsv"
	KindS3V1 Kind = "s3v1"
	KindS3V2 Kind = "s3v2"
)

// Source is a place a project syncs results from.
type Source struct {
	ID        uuid.UUID
	ProjectID uuid.UUID
	Name      string
	URL       string
	// Kind is what the URL served at the last sync; KindAuto before.
	Kind Kind
	// IntervalMinutes schedules a sync every so many minutes; 0 = on
	// demand only.
	IntervalMinutes int
	// MaxPages and MaxObjects bound one sync.
	MaxPages   int
	MaxObjects int
	// NextRunAt is when the next scheduled sync is due; zero when none.
	NextRunAt time.Time
	CreatedBy uuid.UUID
	CreatedAt time.Time
	UpdatedAt time.Time
	// LastRun is the latest sync, when listed.
	LastRun *Run
}

// Cursor returns the source's position in a list.
func (s Source) Cursor() paging.Cursor { return paging.Cursor{CreatedAt: s.CreatedAt, ID: s.ID} }

// Status is where a sync is.
type Status string

// Sync statuses.
const (
	Running   Status = "running"
	Succeeded Status = "succeeded"
	// Partial syncs read the listing but some objects failed.
	Partial Status = "partial"
	// Failed syncs could not read the listing.
	Failed Status = "failed"
)

// Triggers of a sync.
const (
	TriggerManual   = "manual"
	TriggerSchedule = "schedule"
)

// Run is one sync of a source.
type Run struct {
	ID        uuid.UUID
	SourceID  uuid.UUID
	ProjectID uuid.UUID
	Trigger   string
	Status    Status
	Kind      Kind
	StartedAt time.Time
	EndedAt   time.Time
	Pages     int
	Imported  int
	Unchanged int
	Skipped   int
	Failed    int
	// Error says why the sync failed or stopped early.
	Error string
	// Objects are the outcomes, in listing order, when read one by one.
	Objects []Object
}

// Outcome is what a sync did with one object.
type Outcome string

// Outcomes.
const (
	Imported  Outcome = "imported"
	Unchanged Outcome = "unchanged"
	Skipped   Outcome = "skipped"
	FailedObj Outcome = "failed"
)

// Object is one object a sync saw.
type Object struct {
	URL string
	// Size is the size the listing gave; -1 when it gave none.
	Size int64
	// MD5 is the listing's MD5, or the fetched body's when it gave none.
	MD5     []byte
	Outcome Outcome
	Reason  string
	// RunID is the run the object was imported as.
	RunID uuid.UUID
}

// SyncedKey names one version of an object of a source.
type SyncedKey struct {
	SourceID uuid.UUID
	URL      string
	MD5      []byte
	Size     int64
}

// Store is the storage sync needs.
type Store interface {
	CreateSource(ctx context.Context, s Source, actor auth.Actor) (Source, error)
	GetSource(ctx context.Context, id uuid.UUID) (Source, error)
	// ListSources returns up to page.Limit+1 sources of the projects (all
	// when all), newest first, each with its latest sync.
	ListSources(ctx context.Context, ids []uuid.UUID, all bool, page paging.Request) ([]Source, error)
	UpdateSource(ctx context.Context, s Source, actor auth.Actor) (Source, error)
	DeleteSource(ctx context.Context, s Source, actor auth.Actor) error
	// StartSync records a running sync of source; Conflict while another
	// runs. A running sync that started before staleBefore is ended as
	// failed first (its server went away).
	StartSync(ctx context.Context, source uuid.UUID, trigger string, staleBefore time.Time) (Run, error)
	// AddSyncObject records one object's outcome and counts it.
	AddSyncObject(ctx context.Context, run uuid.UUID, idx int, o Object) error
	// EndSync records how a sync ended (status, kind, pages, error).
	EndSync(ctx context.Context, r Run) error
	// ListSyncs returns a source's latest syncs without objects.
	ListSyncs(ctx context.Context, source uuid.UUID, limit int) ([]Run, error)
	// GetSync returns a sync with its objects.
	GetSync(ctx context.Context, id uuid.UUID) (Run, error)
	// SyncedRun returns the run an object version was imported as.
	SyncedRun(ctx context.Context, k SyncedKey) (uuid.UUID, bool, error)
	// ImportSynced stores an imported run and records k for it, in one
	// transaction; when k is recorded already it stores nothing and
	// returns the earlier run with created=false.
	ImportSynced(ctx context.Context, n runs.NewImport, k SyncedKey) (uuid.UUID, bool, error)
	// ClaimDue returns up to limit sources whose next_run_at has passed,
	// moving it one interval on so no other server claims them.
	ClaimDue(ctx context.Context, now time.Time, limit int) ([]Source, error)
	// GetProject returns a project (for its allow-list).
	GetProject(ctx context.Context, id uuid.UUID) (projects.Project, error)
	// OrgTargetPolicy returns the target policy of organisation org, the
	// bound of its projects' allow-lists.
	OrgTargetPolicy(ctx context.Context, org uuid.UUID) ([]string, error)
}
