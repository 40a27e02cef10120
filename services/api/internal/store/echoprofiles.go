package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/echoprofiles"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
)

// echoProfileRow is a row of echo_profiles.
type echoProfileRow struct {
	ID        uuid.UUID  `gorm:"column:id;primaryKey"`
	ProjectID uuid.UUID  `gorm:"column:project_id"`
	Name      string     `gorm:"column:name"`
	Content   string     `gorm:"column:content"`
	CreatedBy *uuid.UUID `gorm:"column:created_by"`
	CreatedAt time.Time  `gorm:"column:created_at"`
	UpdatedAt time.Time  `gorm:"column:updated_at"`
}

// TableName returns the table of echoProfileRow.
func (echoProfileRow) TableName() string { return "echo_profiles" }

func echoProfileFromRow(r echoProfileRow) echoprofiles.Profile {
	return echoprofiles.Profile{
		ID: r.ID, ProjectID: r.ProjectID, Name: r.Name, Content: r.Content, CreatedBy: fromNullUUID(r.CreatedBy),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

const echoProfileTaken = "the project has an echo profile with this name"

// CreateEchoProfile inserts a profile with an audit entry; Conflict when
// the project has one with that name.
func (s *Store) CreateEchoProfile(ctx context.Context, p echoprofiles.Profile, actor auth.Actor) (echoprofiles.Profile, error) {
	row := echoProfileRow{
		ID: p.ID, ProjectID: p.ProjectID, Name: p.Name, Content: p.Content, CreatedBy: nullUUID(p.CreatedBy),
		CreatedAt: orNow(p.CreatedAt), UpdatedAt: orNow(p.UpdatedAt),
	}
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(&row).Error; err != nil {
			if isUnique(err) {
				return apperr.New(apperr.Conflict, echoProfileTaken)
			}
			return fmt.Errorf("insert: %w", err)
		}
		return audit(tx, actor, auditEntry{
			Action: "echo_profile.create", Kind: "echo_profile", ID: row.ID.String(), Project: row.ProjectID,
			Details: map[string]any{"name": row.Name, "content": row.Content},
		})
	})
	if err != nil {
		return echoprofiles.Profile{}, fmt.Errorf("create echo profile: %w", err)
	}
	return echoProfileFromRow(row), nil
}

// GetEchoProfile returns a profile; NotFound when there is none.
func (s *Store) GetEchoProfile(ctx context.Context, id uuid.UUID) (echoprofiles.Profile, error) {
	var row echoProfileRow
	if err := s.conn(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return echoprofiles.Profile{}, classify(err, "get echo profile", "echo profile", id)
	}
	return echoProfileFromRow(row), nil
}

// ListEchoProfiles returns up to page.Limit+1 profiles of the projects,
// newest first.
func (s *Store) ListEchoProfiles(ctx context.Context, ids []uuid.UUID, all bool, page paging.Request) ([]echoprofiles.Profile, error) {
	var rows []echoProfileRow
	if err := keyset(inProjects(s.conn(ctx).Model(&echoProfileRow{}), ids, all), page).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list echo profiles: %w", err)
	}
	out := make([]echoprofiles.Profile, len(rows))
	for i := range rows {
		out[i] = echoProfileFromRow(rows[i])
	}
	return out, nil
}

// UpdateEchoProfile stores a profile's name and content with an audit entry.
func (s *Store) UpdateEchoProfile(ctx context.Context, p echoprofiles.Profile, actor auth.Actor) (echoprofiles.Profile, error) {
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&echoProfileRow{}).Where("id = ?", p.ID).Updates(map[string]any{
			"name": p.Name, "content": p.Content, "updated_at": orNow(p.UpdatedAt),
		})
		if res.Error != nil {
			if isUnique(res.Error) {
				return apperr.New(apperr.Conflict, echoProfileTaken)
			}
			return fmt.Errorf("update: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return notFound("echo profile", p.ID)
		}
		return audit(tx, actor, auditEntry{
			Action: "echo_profile.update", Kind: "echo_profile", ID: p.ID.String(), Project: p.ProjectID,
			Details: map[string]any{"name": p.Name, "content": p.Content},
		})
	})
	if err != nil {
		return echoprofiles.Profile{}, fmt.Errorf("update echo profile: %w", err)
	}
	return s.GetEchoProfile(ctx, p.ID)
}

// DeleteEchoProfile removes a profile with an audit entry.
func (s *Store) DeleteEchoProfile(ctx context.Context, p echoprofiles.Profile, actor auth.Actor) error {
	return s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("id = ?", p.ID).Delete(&echoProfileRow{}).Error; err != nil {
			return fmt.Errorf("delete echo profile: %w", err)
		}
		return audit(tx, actor, auditEntry{
			Action: "echo_profile.delete", Kind: "echo_profile", ID: p.ID.String(), Project: p.ProjectID,
			Details: map[string]any{"name": p.Name},
		})
	})
}
