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
	"github.com/barrage-dev/barrage/services/api/internal/members"
)

// OrgOf returns the organisation of user; NotFound when there is no such
// user.
func (s *Store) OrgOf(ctx context.Context, user uuid.UUID) (uuid.UUID, error) {
	var row userRow
	if err := s.conn(ctx).Select("org_id").Where("id = ?", user).Take(&row).Error; err != nil {
		return uuid.Nil, classify(err, "organisation of user", "user", user)
	}
	return row.OrgID, nil
}

// UpdateUser applies patch to user of org; see members.Store. The enabled
// org admins of org are locked first, so two changes cannot each take a
// different one of the last two.
func (s *Store) UpdateUser(ctx context.Context, org, user uuid.UUID, patch members.UserPatch, actor auth.Actor) (members.User, error) {
	var row userRow
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var admins []uuid.UUID
		err := tx.Raw("SELECT id FROM users WHERE org_id = ? AND is_admin AND disabled_at IS NULL ORDER BY id FOR UPDATE", org).
			Scan(&admins).Error
		if err != nil {
			return err
		}
		if err := tx.Where("org_id = ? AND id = ?", org, user).Take(&row).Error; err != nil {
			return classify(err, "find user", "user", user)
		}
		details := map[string]any{}
		updates := map[string]any{}
		if patch.OrgAdmin != nil && *patch.OrgAdmin != row.IsAdmin {
			updates["is_admin"], details["org_admin"] = *patch.OrgAdmin, *patch.OrgAdmin
		}
		disable := patch.Disabled != nil && *patch.Disabled && row.DisabledAt == nil
		if patch.Disabled != nil && *patch.Disabled != (row.DisabledAt != nil) {
			details["disabled"] = *patch.Disabled
			if disable {
				updates["disabled_at"] = time.Now().UTC()
			} else {
				updates["disabled_at"] = nil
			}
		}
		if len(updates) == 0 {
			return nil
		}
		wasEnabledAdmin := row.IsAdmin && row.DisabledAt == nil
		staysEnabledAdmin := (patch.OrgAdmin == nil || *patch.OrgAdmin) && row.IsAdmin && !disable
		if wasEnabledAdmin && !staysEnabledAdmin && len(admins) <= 1 {
			return apperr.New(apperr.Conflict, "%s is the organisation's last enabled org admin", row.Email)
		}
		if err := tx.Model(&userRow{}).Where("id = ?", user).Updates(updates).Error; err != nil {
			return err
		}
		if disable {
			res := tx.Exec("UPDATE sessions SET revoked_at = now() WHERE user_id = ? AND revoked_at IS NULL", user)
			if res.Error != nil {
				return res.Error
			}
			details["sessions_ended"] = res.RowsAffected
		}
		if err := tx.Where("id = ?", user).Take(&row).Error; err != nil {
			return err
		}
		return audit(tx, actor, auditEntry{Action: "user.update", Kind: "user", ID: user.String(), Details: details})
	})
	if err != nil {
		return members.User{}, fmt.Errorf("update user %s: %w", user, err)
	}
	return userFromRow(row), nil
}

// SetPassword stores hash as user's password, ends every session of user
// but keep (uuid.Nil: all of them), clears the failed sign-ins of the
// user's email and audits action (user.password_change or
// user.password_reset) with the number of sessions ended; NotFound when
// there is no such user.
func (s *Store) SetPassword(ctx context.Context, user uuid.UUID, hash string, keep uuid.UUID, action string, actor auth.Actor) (int, error) {
	var ended int
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var err error
		ended, err = setPassword(tx, user, hash, keep, action, actor)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("set password of %s: %w", user, err)
	}
	return ended, nil
}

// ResetPassword is an org admin's reset of the password of user of org;
// see members.Store. The user's row is locked first, so a user disabled
// meanwhile is refused rather than given a password.
func (s *Store) ResetPassword(ctx context.Context, org, user uuid.UUID, hash string, actor auth.Actor) (int, error) {
	var ended int
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var row userRow
		err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("org_id = ? AND id = ?", org, user).Take(&row).Error
		if err != nil {
			return classify(err, "find user", "user", user)
		}
		if row.DisabledAt != nil {
			return members.DisabledUser(row.Email)
		}
		ended, err = setPassword(tx, user, hash, uuid.Nil, "user.password_reset", actor)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("reset password of %s: %w", user, err)
	}
	return ended, nil
}

// setPassword is SetPassword in tx.
func setPassword(tx *gorm.DB, user uuid.UUID, hash string, keep uuid.UUID, action string, actor auth.Actor) (int, error) {
	res := tx.Model(&userRow{}).Where("id = ?", user).Update("password_hash", hash)
	if res.Error != nil {
		return 0, res.Error
	}
	if res.RowsAffected == 0 {
		return 0, notFound("user", user)
	}
	res = tx.Exec("UPDATE sessions SET revoked_at = now() WHERE user_id = ? AND revoked_at IS NULL AND id <> ?", user, keep)
	if res.Error != nil {
		return 0, res.Error
	}
	ended := res.RowsAffected
	err := tx.Exec("DELETE FROM login_failures WHERE email = (SELECT lower(email) FROM users WHERE id = ?)", user).Error
	if err != nil {
		return 0, err
	}
	err = audit(tx, actor, auditEntry{Action: action, Kind: "user", ID: user.String(), Details: map[string]any{"sessions_ended": ended}})
	return int(ended), err
}
