// Package auth is who is calling and what they may do: API tokens (format,
// checksum, hashing), dashboard sessions, password hashes, the Principal
// that a request carries, and role checks per project. The HTTP layer turns
// credentials into a Principal with Authenticator; domain services ask the
// Principal what it may do.
//
// It is not the place for storage (the store implements Store) nor for
// per-route policy (each domain service says which role an action needs).
package auth

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// Role is a project role; each includes the rights of the ones before it.
type Role string

// Roles, weakest first.
const (
	// Viewer reads a project's tests, runs and results.
	Viewer Role = "viewer"
	// Runner also starts and stops runs.
	Runner Role = "runner"
	// Admin also manages tests, tokens, members and sync sources.
	Admin Role = "admin"
)

// rank orders the roles; 0 is no role.
func (r Role) rank() int {
	switch r {
	case Viewer:
		return 1
	case Runner:
		return 2
	case Admin:
		return 3
	default:
		return 0
	}
}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r.rank() > 0 }

// Includes reports whether r grants at least the rights of need.
func (r Role) Includes(need Role) bool { return r.rank() >= need.rank() && r.Valid() }

// Lower returns the weaker of r and o; no role ("") is weaker than any.
func Lower(r, o Role) Role {
	if o.rank() < r.rank() {
		return o
	}
	return r
}

// ParseRole returns the role named s.
func ParseRole(s string) (Role, error) {
	r := Role(s)
	if !r.Valid() {
		return "", fmt.Errorf("role %q: must be viewer, runner or admin", s)
	}
	return r, nil
}

// Principal is the authenticated caller of one request.
type Principal struct {
	// UserID is the user the credentials belong to.
	UserID uuid.UUID
	// Email is the user's email, for logs and /me.
	Email string
	// Name is the user's display name.
	Name string
	// OrgAdmin users may create projects and act as admin in every project,
	// unless the token used limits them to one project.
	OrgAdmin bool
	// TokenID is the API token used, or uuid.Nil for a session.
	TokenID uuid.UUID
	// SessionID is the session used, or uuid.Nil for a token.
	SessionID uuid.UUID
	// TokenProject and TokenRole limit a project token to one project and
	// role; TokenProject is uuid.Nil for an unscoped credential.
	TokenProject uuid.UUID
	// TokenRole is the effective role of a project token: the lower of the
	// token's own role and its owner's current role in TokenProject (an
	// org admin's token keeps its own). The Authenticator refuses a token
	// whose owner left the project (401), so it is never "" for a caller.
	TokenRole Role
	// Memberships maps the projects the user belongs to to their roles.
	Memberships map[uuid.UUID]Role

	// session describes the session used, for rotation.
	session sessionState
}

// sessionState is what rotation needs to know about the session used.
type sessionState struct {
	issuedAt  time.Time
	expiresAt time.Time
	replaced  bool
}

// AnonymousName is the name of the anonymous visitors of a read-only server.
const AnonymousName = "anonymous"

// Anonymous reports whether p is a read-only server's anonymous visitor
// rather than a user.
func (p *Principal) Anonymous() bool {
	return p.UserID == uuid.Nil && p.TokenID == uuid.Nil && p.SessionID == uuid.Nil
}

// Scoped reports whether the credentials are limited to one project.
func (p *Principal) Scoped() bool { return p.TokenProject != uuid.Nil }

// RoleIn returns the caller's role in project, or "" when the caller
// cannot see it at all.
func (p *Principal) RoleIn(project uuid.UUID) Role {
	if p.Scoped() {
		if project != p.TokenProject {
			return ""
		}
		return p.TokenRole
	}
	if p.OrgAdmin {
		return Admin
	}
	return p.Memberships[project]
}

// Can reports whether the caller holds at least role need in project.
func (p *Principal) Can(project uuid.UUID, need Role) bool {
	return p.RoleIn(project).Includes(need)
}

// Reach is the access rule for a resource of kind (a "run", a "test") that
// was loaded by id with loadErr: NotFound when it does not exist or lives in
// a project the caller cannot see, so its existence is not revealed;
// Forbidden when the caller's role there is below need; nil when allowed.
func (p *Principal) Reach(loadErr error, project uuid.UUID, need Role, kind string, id uuid.UUID) error {
	if apperr.Is(loadErr, apperr.NotFound) || (loadErr == nil && p.RoleIn(project) == "") {
		return apperr.New(apperr.NotFound, "%s %s not found", kind, id)
	}
	if loadErr != nil {
		return fmt.Errorf("load %s %s: %w", kind, id, loadErr)
	}
	if !p.Can(project, need) {
		return apperr.New(apperr.Forbidden, "this action needs the %s role in the %s's project", need, kind)
	}
	return nil
}

// VisibleProjects returns the projects the caller can see, or nil with
// all=true for an unscoped org admin, who sees every project.
func (p *Principal) VisibleProjects() (ids []uuid.UUID, all bool) {
	if p.Scoped() {
		if !p.TokenRole.Valid() { // its owner left the project
			return []uuid.UUID{}, false
		}
		return []uuid.UUID{p.TokenProject}, false
	}
	if p.OrgAdmin {
		return nil, true
	}
	ids = make([]uuid.UUID, 0, len(p.Memberships))
	for id := range p.Memberships {
		ids = append(ids, id)
	}
	return ids, false
}

// Actor is who made a change, for the audit log.
type Actor struct {
	// UserID is the user; uuid.Nil for the system (bootstrap, CLI).
	UserID uuid.UUID
	// TokenID is the token used, if any.
	TokenID uuid.UUID
}

// Actor returns the audit identity of the caller.
func (p *Principal) Actor() Actor {
	return Actor{UserID: p.UserID, TokenID: p.TokenID}
}
