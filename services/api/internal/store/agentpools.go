package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// ProjectAgentPools returns the agent pools project id is restricted to
// (projects.agent_pools); empty for every agent, NotFound without the
// project.
func (s *Store) ProjectAgentPools(ctx context.Context, id uuid.UUID) ([]string, error) {
	var row struct {
		AgentPools textArray `gorm:"column:agent_pools"`
	}
	if err := s.conn(ctx).Model(&projectRow{}).Select("agent_pools").Where("id = ?", id).Take(&row).Error; err != nil {
		return nil, classify(err, "get project agent pools", "project", id)
	}
	return []string(row.AgentPools), nil
}

// SetProjectAgentPools replaces project id's agent pools and writes an
// audit entry (project.agent_pools), in one transaction.
func (s *Store) SetProjectAgentPools(ctx context.Context, id uuid.UUID, pools []string, actor auth.Actor) error {
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&projectRow{}).Where("id = ?", id).Updates(map[string]any{
			"agent_pools": textArray(pools), "updated_at": gorm.Expr("now()"),
		})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return notFound("project", id)
		}
		return audit(tx, actor, auditEntry{
			Action: "project.agent_pools", Kind: "project", ID: id.String(), Project: id,
			Details: map[string]any{"agent_pools": pools},
		})
	})
	if err != nil {
		return fmt.Errorf("set project agent pools: %w", err)
	}
	return nil
}
