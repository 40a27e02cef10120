// Package projects owns projects, the unit every resource and permission
// belongs to: creating them (org admins), reading and renaming them, and
// resolving a project reference (id or slug) for the caller.
//
// It is not the place for membership management (package members) or for
// scoping other resources' queries (each domain package does that with the
// Principal).
package projects

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
)

// Project is a team's space for tests, runs and tokens.
type Project struct {
	ID          uuid.UUID
	OrgID       uuid.UUID
	Slug        string
	Name        string
	Description string
	// PublicResults lets anyone read the project's completed results at
	// /fortio/data.
	PublicResults bool
	// TargetAllowList holds the hosts, IPs and CIDRs (optionally with a
	// port) the project may reach although they are refused by default
	// (package netguard).
	TargetAllowList []string
	// TargetAllowGranted are the entries of TargetAllowList beyond the
	// organisation's target policy that an org admin granted the project
	// (docs/security.md, "Target policy").
	TargetAllowGranted []string
	// Limits are the project's own limits; nil fields are the
	// deployment's (Service.Limits gives the ones in force).
	Limits policy.Overrides
	// Retention is how long the project keeps its runs' data.
	Retention Retention
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Cursor returns the project's position in a list.
func (p Project) Cursor() paging.Cursor {
	return paging.Cursor{CreatedAt: p.CreatedAt, ID: p.ID}
}

// Store is the storage projects need.
type Store interface {
	// CreateProject inserts p, makes admin its admin member and writes an
	// audit entry, in one transaction; Conflict on a duplicate slug.
	CreateProject(ctx context.Context, p Project, admin uuid.UUID, actor auth.Actor) (Project, error)
	// GetProject returns a project by id.
	GetProject(ctx context.Context, id uuid.UUID) (Project, error)
	// GetProjectBySlug returns a project by slug.
	GetProjectBySlug(ctx context.Context, slug string) (Project, error)
	// UpdateProject stores p's name, description, public_results,
	// allow-list (with its granted entries) and limits and writes an audit
	// entry.
	UpdateProject(ctx context.Context, p Project, actor auth.Actor) (Project, error)
	// ListProjects returns up to page.Limit+1 of the projects (every project
	// when all), newest first.
	ListProjects(ctx context.Context, ids []uuid.UUID, all bool, page paging.Request) ([]Project, error)
	// PublicProjects returns the ids of the projects that publish their
	// results (public_results).
	PublicProjects(ctx context.Context) ([]uuid.UUID, error)
	// ProjectLimits returns the limits project id sets; NotFound when
	// there is no such project.
	ProjectLimits(ctx context.Context, id uuid.UUID) (policy.Overrides, error)
	// DefaultOrg returns the id of the organisation new projects join.
	DefaultOrg(ctx context.Context) (uuid.UUID, error)
	// ProjectAgentPools returns the agent pools project id is restricted
	// to; SetProjectAgentPools replaces them and writes an audit entry.
	ProjectAgentPools(ctx context.Context, id uuid.UUID) ([]string, error)
	SetProjectAgentPools(ctx context.Context, id uuid.UUID, pools []string, actor auth.Actor) error
	// OrgTargetPolicy returns the target policy of organisation org.
	OrgTargetPolicy(ctx context.Context, org uuid.UUID) ([]string, error)
	// SetOrgTargetPolicy stores the target policy of organisation org and
	// writes an audit entry.
	SetOrgTargetPolicy(ctx context.Context, org uuid.UUID, list []string, actor auth.Actor) error
}
