package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// userRow is a row of users.
type userRow struct {
	ID           uuid.UUID  `gorm:"column:id;primaryKey"`
	OrgID        uuid.UUID  `gorm:"column:org_id"`
	Email        string     `gorm:"column:email"`
	Name         string     `gorm:"column:name"`
	PasswordHash *string    `gorm:"column:password_hash"`
	IsAdmin      bool       `gorm:"column:is_admin"`
	CreatedAt    time.Time  `gorm:"column:created_at"`
	DisabledAt   *time.Time `gorm:"column:disabled_at"`
}

// TableName returns the table of userRow.
func (userRow) TableName() string { return "users" }

// sessionRow is a row of sessions.
type sessionRow struct {
	ID         uuid.UUID  `gorm:"column:id;primaryKey"`
	UserID     uuid.UUID  `gorm:"column:user_id"`
	Hash       []byte     `gorm:"column:hash"`
	CreatedAt  time.Time  `gorm:"column:created_at"`
	ExpiresAt  time.Time  `gorm:"column:expires_at"`
	LastSeenAt time.Time  `gorm:"column:last_seen_at"`
	RevokedAt  *time.Time `gorm:"column:revoked_at"`
	ReplacedBy *uuid.UUID `gorm:"column:replaced_by"`
}

// TableName returns the table of sessionRow.
func (sessionRow) TableName() string { return "sessions" }

// identityRow is a credential joined with its user.
type identityRow struct {
	UserID       uuid.UUID  `gorm:"column:user_id"`
	Email        string     `gorm:"column:email"`
	Name         string     `gorm:"column:name"`
	IsAdmin      bool       `gorm:"column:is_admin"`
	DisabledAt   *time.Time `gorm:"column:disabled_at"`
	CredentialID uuid.UUID  `gorm:"column:credential_id"`
	ProjectID    *uuid.UUID `gorm:"column:project_id"`
	Role         *string    `gorm:"column:role"`
	OwnerRole    *string    `gorm:"column:owner_role"`
	ExpiresAt    *time.Time `gorm:"column:expires_at"`
	RevokedAt    *time.Time `gorm:"column:revoked_at"`
	LastUsedAt   *time.Time `gorm:"column:last_used_at"`
	IssuedAt     *time.Time `gorm:"column:issued_at"`
	Replaced     bool       `gorm:"column:replaced"`
}

// identityFromRow maps the joined row; the credential is a token or a
// session as token says.
func identityFromRow(r identityRow, token bool) auth.Identity {
	id := auth.Identity{
		UserID: r.UserID, Email: r.Email, Name: r.Name, OrgAdmin: r.IsAdmin, UserDisabled: r.DisabledAt != nil,
		TokenProject: fromNullUUID(r.ProjectID), TokenRole: auth.Role(fromNullString(r.Role)),
		OwnerRole: auth.Role(fromNullString(r.OwnerRole)),
		ExpiresAt: fromNullTime(r.ExpiresAt), RevokedAt: fromNullTime(r.RevokedAt), LastUsedAt: fromNullTime(r.LastUsedAt),
		IssuedAt: fromNullTime(r.IssuedAt), Replaced: r.Replaced,
	}
	if token {
		id.TokenID = r.CredentialID
	} else {
		id.SessionID = r.CredentialID
	}
	return id
}

// identityByTokenSQL finds an API token and its user by hash, with the
// user's current role in the token's project (NULL when they are not a
// member, or the token is unscoped), in the same read.
//
//nolint:gosec // SQL text, not a credential
const identityByTokenSQL = `
SELECT u.id AS user_id, u.email, u.name, u.is_admin, u.disabled_at,
       t.id AS credential_id, t.project_id, t.role, m.role AS owner_role,
       t.expires_at, t.revoked_at, t.last_used_at,
       NULL::timestamptz AS issued_at, false AS replaced
FROM api_tokens t JOIN users u ON u.id = t.user_id
LEFT JOIN memberships m ON m.project_id = t.project_id AND m.user_id = t.user_id
WHERE t.hash = ?`

// identityBySessionSQL finds a session and its user by hash.
const identityBySessionSQL = `
SELECT u.id AS user_id, u.email, u.name, u.is_admin, u.disabled_at,
       s.id AS credential_id, NULL::uuid AS project_id, NULL::text AS role, NULL::text AS owner_role,
       s.expires_at, s.revoked_at, NULL::timestamptz AS last_used_at,
       s.created_at AS issued_at, s.replaced_by IS NOT NULL AS replaced
FROM sessions s JOIN users u ON u.id = s.user_id
WHERE s.hash = ?`

// identity runs one of the identity queries.
func (s *Store) identity(ctx context.Context, query string, hash []byte, token bool) (auth.Identity, error) {
	kind := "session"
	if token {
		kind = "token"
	}
	var rows []identityRow
	if err := s.conn(ctx).Raw(query, hash).Scan(&rows).Error; err != nil {
		return auth.Identity{}, fmt.Errorf("find %s: %w", kind, err)
	}
	if len(rows) == 0 {
		return auth.Identity{}, notFound(kind, "with this secret")
	}
	return identityFromRow(rows[0], token), nil
}

// IdentityByTokenHash finds an API token and its user by the token's hash;
// NotFound when unknown.
func (s *Store) IdentityByTokenHash(ctx context.Context, hash []byte) (auth.Identity, error) {
	return s.identity(ctx, identityByTokenSQL, hash, true)
}

// IdentityBySessionHash finds a session and its user by the cookie's hash;
// NotFound when unknown.
func (s *Store) IdentityBySessionHash(ctx context.Context, hash []byte) (auth.Identity, error) {
	return s.identity(ctx, identityBySessionSQL, hash, false)
}

// Memberships returns the user's role in each project they belong to.
func (s *Store) Memberships(ctx context.Context, user uuid.UUID) (map[uuid.UUID]auth.Role, error) {
	var rows []membershipRow
	if err := s.conn(ctx).Where("user_id = ?", user).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("memberships of %s: %w", user, err)
	}
	out := make(map[uuid.UUID]auth.Role, len(rows))
	for _, r := range rows {
		out[r.ProjectID] = auth.Role(r.Role)
	}
	return out, nil
}

// TouchToken records that a token was used at at. It writes no audit
// entry: it is bookkeeping, not a change someone made.
func (s *Store) TouchToken(ctx context.Context, token uuid.UUID, at time.Time) error {
	err := s.conn(ctx).Model(&tokenRow{}).Where("id = ?", token).Update("last_used_at", orNow(at)).Error
	if err != nil {
		return fmt.Errorf("touch token %s: %w", token, err)
	}
	return nil
}

// LoginByEmail finds a user by email, case-insensitively; NotFound when
// unknown.
func (s *Store) LoginByEmail(ctx context.Context, email string) (auth.Login, error) {
	var row userRow
	if err := s.conn(ctx).Where("lower(email) = lower(?)", email).Take(&row).Error; err != nil {
		return auth.Login{}, classify(err, "find user by email", "user", fmt.Sprintf("%q", email))
	}
	return auth.Login{UserID: row.ID, PasswordHash: fromNullString(row.PasswordHash), Disabled: row.DisabledAt != nil}, nil
}

// RevokeSession ends a session and audits the sign-out. The sessions of the
// same sign-in a rotation links it to (its successor, its predecessor still
// in its grace) end with it. Revoking a revoked session changes nothing;
// NotFound when there is no such session.
func (s *Store) RevokeSession(ctx context.Context, id uuid.UUID) error {
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		err := tx.Exec(`UPDATE sessions SET revoked_at = now() WHERE revoked_at IS NULL
			AND (replaced_by = ? OR id = (SELECT replaced_by FROM sessions WHERE id = ?))`, id, id).Error
		if err != nil {
			return err
		}
		var users []struct {
			UserID uuid.UUID `gorm:"column:user_id"`
		}
		err = tx.Raw("UPDATE sessions SET revoked_at = now() WHERE id = ? AND revoked_at IS NULL RETURNING user_id", id).
			Scan(&users).Error
		if err != nil {
			return err
		}
		if len(users) == 0 {
			var n int64
			if err := tx.Model(&sessionRow{}).Where("id = ?", id).Count(&n).Error; err != nil {
				return err
			}
			if n == 0 {
				return notFound("session", id)
			}
			return nil
		}
		return audit(tx, auth.Actor{UserID: users[0].UserID}, auditEntry{Action: "session.revoke", Kind: "session", ID: id.String()})
	})
	if err != nil {
		return fmt.Errorf("revoke session: %w", err)
	}
	return nil
}

// UserPrincipal returns user acting on their own account, with their
// current roles and no credential: for work the API does on a user's
// behalf after the request that asked for it (a capacity search resumed
// by another API process). NotFound when the user is gone, Forbidden when
// they are disabled.
func (s *Store) UserPrincipal(ctx context.Context, user uuid.UUID) (*auth.Principal, error) {
	var row userRow
	if err := s.conn(ctx).Where("id = ?", user).Take(&row).Error; err != nil {
		return nil, classify(err, "find user", "user", user)
	}
	if row.DisabledAt != nil {
		return nil, apperr.New(apperr.Forbidden, "user %s is disabled", row.Email)
	}
	m, err := s.Memberships(ctx, user)
	if err != nil {
		return nil, err
	}
	return &auth.Principal{UserID: row.ID, Email: row.Email, Name: row.Name, OrgAdmin: row.IsAdmin, Memberships: m}, nil
}
