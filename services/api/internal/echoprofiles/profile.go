// Package echoprofiles owns managed echo fault profiles: named sets of
// barrage-echo default parameters stored per project, activated on the
// echoes registered for the project by writing them into the NATS bucket
// the echoes follow, and looked up when a run is submitted so the run
// records the profile its target applied.
//
// It is not the place for the echo's parameter grammar (pkg/echofault),
// for the bucket contract (pkg/wire) or for the echo side (services/echo).
package echoprofiles

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
)

// Profile is a named set of echo default parameters of a project.
type Profile struct {
	ID        uuid.UUID
	ProjectID uuid.UUID
	Name      string
	// Content is the query string the echo applies ("status=503:5").
	Content   string
	CreatedBy uuid.UUID
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Cursor returns the profile's position in a list.
func (p Profile) Cursor() paging.Cursor { return paging.Cursor{CreatedAt: p.CreatedAt, ID: p.ID} }

// wire returns the profile as an echo's active profile, activated at.
func (p Profile) wire(at time.Time) wire.EchoProfile {
	return wire.EchoProfile{ProfileID: p.ID.String(), Name: p.Name, Content: p.Content, ActivatedAt: at.UTC()}
}

// Server is a registered echo with the profile active on it.
type Server struct {
	wire.EchoRegistration
	// Active is the profile in the echo's key; nil when none.
	Active *wire.EchoProfile
}

// Store is the storage of profiles.
type Store interface {
	// CreateEchoProfile inserts a profile; Conflict when the name is taken.
	CreateEchoProfile(ctx context.Context, p Profile, actor auth.Actor) (Profile, error)
	// GetEchoProfile returns a profile; NotFound when there is none.
	GetEchoProfile(ctx context.Context, id uuid.UUID) (Profile, error)
	// ListEchoProfiles returns up to page.Limit+1 profiles of the projects
	// (all when all), newest first.
	ListEchoProfiles(ctx context.Context, ids []uuid.UUID, all bool, page paging.Request) ([]Profile, error)
	// UpdateEchoProfile stores a profile's name and content.
	UpdateEchoProfile(ctx context.Context, p Profile, actor auth.Actor) (Profile, error)
	// DeleteEchoProfile removes a profile.
	DeleteEchoProfile(ctx context.Context, p Profile, actor auth.Actor) error
}

// Registry is where echoes register and read their active profile (the
// NATS buckets; see KV).
type Registry interface {
	// Echoes returns the live registrations.
	Echoes(ctx context.Context) ([]wire.EchoRegistration, error)
	// Active returns the profile active on an echo; ok is false when none.
	Active(ctx context.Context, echo string) (p wire.EchoProfile, ok bool, err error)
	// ActiveAll returns the active profile of every echo that has one.
	ActiveAll(ctx context.Context) (map[string]wire.EchoProfile, error)
	// Activate writes p as the echo's active profile.
	Activate(ctx context.Context, echo string, p wire.EchoProfile) error
	// Deactivate removes the echo's active profile.
	Deactivate(ctx context.Context, echo string) error
}
