package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// auditRow is a row of audit_log.
type auditRow struct {
	ID         int64      `gorm:"column:id;primaryKey;autoIncrement"`
	At         time.Time  `gorm:"column:at;default:now()"`
	ProjectID  *uuid.UUID `gorm:"column:project_id"`
	UserID     *uuid.UUID `gorm:"column:user_id"`
	TokenID    *uuid.UUID `gorm:"column:token_id"`
	Action     string     `gorm:"column:action"`
	TargetKind string     `gorm:"column:target_kind"`
	TargetID   string     `gorm:"column:target_id"`
	Details    []byte     `gorm:"column:details"`
}

// TableName returns the table of auditRow.
func (auditRow) TableName() string { return "audit_log" }

// auditEntry is one change to record.
type auditEntry struct {
	// Action is "<kind>.<verb>", e.g. "run.create".
	Action string
	// Kind and ID name the changed object.
	Kind string
	ID   string
	// Project is the project the object belongs to, or uuid.Nil.
	Project uuid.UUID
	// Details is extra context, marshalled to JSON; nil for {}.
	Details map[string]any
}

// audit writes e, made by actor, in tx.
func audit(tx *gorm.DB, actor auth.Actor, e auditEntry) error {
	details := []byte("{}")
	if e.Details != nil {
		b, err := json.Marshal(e.Details)
		if err != nil {
			return fmt.Errorf("audit %s: %w", e.Action, err)
		}
		details = b
	}
	row := auditRow{
		ProjectID: nullUUID(e.Project), UserID: nullUUID(actor.UserID), TokenID: nullUUID(actor.TokenID),
		Action: e.Action, TargetKind: e.Kind, TargetID: e.ID, Details: details,
	}
	if err := tx.Create(&row).Error; err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	return nil
}
