package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/tokens"
)

// tokenRow is a row of api_tokens.
type tokenRow struct {
	ID         uuid.UUID  `gorm:"column:id;primaryKey"`
	UserID     uuid.UUID  `gorm:"column:user_id"`
	ProjectID  *uuid.UUID `gorm:"column:project_id"`
	Role       *string    `gorm:"column:role"`
	Name       string     `gorm:"column:name"`
	Hash       []byte     `gorm:"column:hash"`
	Hint       string     `gorm:"column:hint"`
	CreatedAt  time.Time  `gorm:"column:created_at"`
	ExpiresAt  *time.Time `gorm:"column:expires_at"`
	LastUsedAt *time.Time `gorm:"column:last_used_at"`
	RevokedAt  *time.Time `gorm:"column:revoked_at"`
}

// TableName returns the table of tokenRow.
func (tokenRow) TableName() string { return "api_tokens" }

// tokenToRow maps a token to its row.
func tokenToRow(t tokens.Token) tokenRow {
	return tokenRow{
		ID: t.ID, UserID: t.UserID, ProjectID: nullUUID(t.ProjectID), Role: nullString(string(t.Role)),
		Name: t.Name, Hash: t.Hash, Hint: t.Hint, CreatedAt: orNow(t.CreatedAt),
		ExpiresAt: nullTime(t.ExpiresAt), LastUsedAt: nullTime(t.LastUsedAt), RevokedAt: nullTime(t.RevokedAt),
	}
}

// tokenFromRow maps a row to a token.
func tokenFromRow(r tokenRow) tokens.Token {
	return tokens.Token{
		ID: r.ID, UserID: r.UserID, ProjectID: fromNullUUID(r.ProjectID), Role: auth.Role(fromNullString(r.Role)),
		Name: r.Name, Hash: r.Hash, Hint: r.Hint, CreatedAt: r.CreatedAt.UTC(),
		ExpiresAt: fromNullTime(r.ExpiresAt), LastUsedAt: fromNullTime(r.LastUsedAt), RevokedAt: fromNullTime(r.RevokedAt),
	}
}

// CreateToken inserts t and an audit entry; Conflict when a token with the
// same hash exists.
func (s *Store) CreateToken(ctx context.Context, t tokens.Token, actor auth.Actor) (tokens.Token, error) {
	row := tokenToRow(t)
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.Returning{}).Create(&row).Error; err != nil {
			if isUnique(err) {
				return apperr.New(apperr.Conflict, "a token with this secret already exists")
			}
			return err
		}
		return audit(tx, actor, auditEntry{
			Action: "token.create", Kind: "token", ID: row.ID.String(), Project: t.ProjectID,
			Details: map[string]any{"name": row.Name, "role": t.Role, "hint": row.Hint},
		})
	})
	if err != nil {
		return tokens.Token{}, fmt.Errorf("create token: %w", err)
	}
	return tokenFromRow(row), nil
}

// GetToken returns a token by id; NotFound when there is none.
func (s *Store) GetToken(ctx context.Context, id uuid.UUID) (tokens.Token, error) {
	var row tokenRow
	if err := s.conn(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return tokens.Token{}, classify(err, "get token", "token", id)
	}
	return tokenFromRow(row), nil
}

// RevokeToken sets revoked_at to at and writes an audit entry. Revoking a
// revoked token changes nothing; NotFound when there is no such token.
func (s *Store) RevokeToken(ctx context.Context, id uuid.UUID, at time.Time, actor auth.Actor) error {
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var row tokenRow
		res := tx.Model(&row).Clauses(clause.Returning{}).
			Where("id = ? AND revoked_at IS NULL", id).Update("revoked_at", orNow(at))
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			var n int64
			if err := tx.Model(&tokenRow{}).Where("id = ?", id).Count(&n).Error; err != nil {
				return err
			}
			if n == 0 {
				return notFound("token", id)
			}
			return nil // revoked before
		}
		return audit(tx, actor, auditEntry{
			Action: "token.revoke", Kind: "token", ID: id.String(), Project: fromNullUUID(row.ProjectID),
			Details: map[string]any{"name": row.Name},
		})
	})
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	return nil
}

// ListTokens returns up to page.Limit+1 project tokens (never the unscoped
// ones) of the projects, or of every project when all, newest first.
func (s *Store) ListTokens(ctx context.Context, projectIDs []uuid.UUID, all bool, page paging.Request) ([]tokens.Token, error) {
	if !all && len(projectIDs) == 0 {
		return nil, nil
	}
	q := s.conn(ctx).Model(&tokenRow{}).Where("project_id IS NOT NULL")
	q = inProjects(q, projectIDs, all)
	var rows []tokenRow
	if err := keyset(q, page).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	out := make([]tokens.Token, len(rows))
	for i := range rows {
		out[i] = tokenFromRow(rows[i])
	}
	return out, nil
}
