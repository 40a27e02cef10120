// Package members owns who belongs to a project and with which role:
// listing members, adding an organisation's user or changing their role,
// removing them (project admins; a project always keeps one admin), and
// creating, listing and disabling the organisation's users, resetting
// their passwords and granting or taking the org admin role (org admins;
// an organisation always keeps one enabled org admin).
//
// It is not the place for sign-in or sessions (package auth) nor for
// resolving projects (package projects, which it asks).
package members

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// User is a person of the organisation.
type User struct {
	ID    uuid.UUID
	OrgID uuid.UUID
	Email string
	Name  string
	// OrgAdmin users may create projects and users and act as admin in
	// every project.
	OrgAdmin bool
	// Disabled users cannot sign in; their sessions and tokens stop working.
	Disabled bool
}

// Member is a user's role in one project.
type Member struct {
	User    User
	Role    auth.Role
	AddedAt time.Time
}

// NewUser is a user to create.
type NewUser struct {
	ID           uuid.UUID
	Email        string
	Name         string
	PasswordHash string
	CreatedAt    time.Time
}

// Store is the storage membership management needs.
type Store interface {
	// ListMembers returns every member of project, by email.
	ListMembers(ctx context.Context, project uuid.UUID) ([]Member, error)
	// FindOrgUser finds a user of org by id (when ref is a UUID) or by
	// email, case-insensitively; NotFound when there is none.
	FindOrgUser(ctx context.Context, org uuid.UUID, ref string) (User, error)
	// PutMember gives user role in project, adding them when they are not
	// a member, and audits member.added or member.changed (nothing when the
	// role is unchanged), in one transaction; Conflict when that would
	// demote the project's last admin.
	PutMember(ctx context.Context, project, user uuid.UUID, role auth.Role, at time.Time, actor auth.Actor) (Member, error)
	// RemoveMember removes user from project and audits member.removed;
	// NotFound when they are not a member, Conflict when they are its last
	// admin.
	RemoveMember(ctx context.Context, project, user uuid.UUID, actor auth.Actor) error
	// CreateUser stores u in the organisation of creator and audits
	// user.create; Conflict when the email is taken.
	CreateUser(ctx context.Context, u NewUser, creator auth.Actor) (User, error)
	// OrgOf returns the organisation of user.
	OrgOf(ctx context.Context, user uuid.UUID) (uuid.UUID, error)
	// UpdateUser applies patch to user of org and audits user.update, in
	// one transaction; disabling ends the user's sessions. Conflict when
	// the organisation would be left without an enabled org admin.
	UpdateUser(ctx context.Context, org, user uuid.UUID, patch UserPatch, actor auth.Actor) (User, error)
	// ListOrgUsers returns up to q.Page.Limit+1 users of q.Org matching
	// q.Text, newest first, each with their last sign-in and memberships.
	ListOrgUsers(ctx context.Context, q UserQuery) ([]OrgUser, error)
	// ResetPassword stores hash as the password of user of org, ends every
	// session of theirs, forgets their failed sign-ins and audits
	// user.password_reset (never the password), in one transaction; it
	// returns how many sessions it ended. NotFound when org has no such
	// user, DisabledUser's Conflict when they are disabled.
	ResetPassword(ctx context.Context, org, user uuid.UUID, hash string, actor auth.Actor) (int, error)
}

// DisabledUser is the Conflict of a change a disabled user cannot take.
func DisabledUser(email string) error {
	return apperr.New(apperr.Conflict, "%s is disabled: enable them first", email)
}
