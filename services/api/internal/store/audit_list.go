package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	auditlog "github.com/barrage-dev/barrage/services/api/internal/audit"
)

// auditListRow is an audit_log row with the names of its user and token.
type auditListRow struct {
	ID         int64      `gorm:"column:id"`
	At         time.Time  `gorm:"column:at"`
	ProjectID  *uuid.UUID `gorm:"column:project_id"`
	UserID     *uuid.UUID `gorm:"column:user_id"`
	Email      *string    `gorm:"column:email"`
	TokenID    *uuid.UUID `gorm:"column:token_id"`
	TokenName  *string    `gorm:"column:token_name"`
	Action     string     `gorm:"column:action"`
	TargetKind string     `gorm:"column:target_kind"`
	TargetID   string     `gorm:"column:target_id"`
	Details    []byte     `gorm:"column:details"`
}

// ListAudit returns up to q.Page.Limit+1 audit entries matching q, newest
// (largest id) first.
func (s *Store) ListAudit(ctx context.Context, q auditlog.Query) ([]auditlog.Entry, error) {
	if !q.All && len(q.Projects) == 0 {
		return nil, nil
	}
	db := s.conn(ctx).Table("audit_log AS a").
		Select("a.id, a.at, a.project_id, a.user_id, u.email, a.token_id, t.name AS token_name, " +
			"a.action, a.target_kind, a.target_id, a.details").
		Joins("LEFT JOIN users u ON u.id = a.user_id").
		Joins("LEFT JOIN api_tokens t ON t.id = a.token_id")
	if !q.All {
		db = db.Where("a.project_id = ANY(?::uuid[])", uuidArray(q.Projects))
	}
	switch {
	case strings.HasSuffix(q.Action, "."):
		db = db.Where("starts_with(a.action, ?)", q.Action)
	case q.Action != "":
		db = db.Where("a.action = ?", q.Action)
	}
	if q.Actor != "" {
		db = db.Where("(lower(u.email) = lower(?) OR t.name = ?)", q.Actor, q.Actor)
	}
	if !q.Since.IsZero() {
		db = db.Where("a.at >= ?", q.Since)
	}
	if !q.Until.IsZero() {
		db = db.Where("a.at < ?", q.Until)
	}
	if q.Page.AfterID > 0 {
		db = db.Where("a.id < ?", q.Page.AfterID)
	}
	limit := q.Page.Limit
	if limit < 1 {
		limit = 1
	}
	var rows []auditListRow
	if err := db.Order("a.id DESC").Limit(limit + 1).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("list audit: %w", err)
	}
	out := make([]auditlog.Entry, len(rows))
	for i := range rows {
		r := &rows[i]
		out[i] = auditlog.Entry{
			ID: r.ID, At: r.At.UTC(), ProjectID: fromNullUUID(r.ProjectID), UserID: fromNullUUID(r.UserID),
			Email: fromNullString(r.Email), TokenID: fromNullUUID(r.TokenID), TokenName: fromNullString(r.TokenName),
			Action: r.Action, TargetKind: r.TargetKind, TargetID: r.TargetID, Details: r.Details,
		}
	}
	return out, nil
}
