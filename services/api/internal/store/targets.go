package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// OrgTargetPolicy returns the target policy of organisation org
// (orgs.target_allow_list); NotFound when there is no such organisation.
func (s *Store) OrgTargetPolicy(ctx context.Context, org uuid.UUID) ([]string, error) {
	var row orgRow
	if err := s.conn(ctx).Where("id = ?", org).Take(&row).Error; err != nil {
		return nil, classify(err, "organisation target policy", "organisation", org)
	}
	return []string(row.TargetAllowList), nil
}

// SetOrgTargetPolicy stores the target policy of organisation org and
// writes an audit entry, in one transaction; NotFound when there is no
// such organisation.
func (s *Store) SetOrgTargetPolicy(ctx context.Context, org uuid.UUID, list []string, actor auth.Actor) error {
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&orgRow{}).Where("id = ?", org).Update("target_allow_list", textArray(list))
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return notFound("organisation", org)
		}
		return audit(tx, actor, auditEntry{
			Action: "org.update", Kind: "org", ID: org.String(),
			Details: map[string]any{"target_allow_list": list},
		})
	})
	if err != nil {
		return fmt.Errorf("set organisation target policy: %w", err)
	}
	return nil
}
