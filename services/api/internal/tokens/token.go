// Package tokens owns project API tokens: minting them (the secret is shown
// once), listing and revoking them. Project admins manage their project's
// tokens; the CLI mints them with the system's authority.
//
// It is not the place for checking tokens on requests (package auth does).
package tokens

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
)

// Token is a stored API token; the secret itself is never stored.
type Token struct {
	ID     uuid.UUID
	UserID uuid.UUID
	// ProjectID and Role scope the token; uuid.Nil and "" for a token that
	// acts with its user's rights.
	ProjectID uuid.UUID
	Role      auth.Role
	Name      string
	// Hash is SHA-256 of the secret.
	Hash []byte
	// Hint is the secret's first characters.
	Hint       string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastUsedAt time.Time
	RevokedAt  time.Time
}

// Cursor returns the token's position in a list.
func (t Token) Cursor() paging.Cursor {
	return paging.Cursor{CreatedAt: t.CreatedAt, ID: t.ID}
}

// Store is the storage tokens need.
type Store interface {
	// CreateToken inserts t and an audit entry.
	CreateToken(ctx context.Context, t Token, actor auth.Actor) (Token, error)
	// GetToken returns a token by id; NotFound when there is none.
	GetToken(ctx context.Context, id uuid.UUID) (Token, error)
	// RevokeToken sets revoked_at (once) and writes an audit entry.
	RevokeToken(ctx context.Context, id uuid.UUID, at time.Time, actor auth.Actor) error
	// ListTokens returns up to page.Limit+1 project tokens of the projects
	// (every project when all), newest first.
	ListTokens(ctx context.Context, projects []uuid.UUID, all bool, page paging.Request) ([]Token, error)
}
