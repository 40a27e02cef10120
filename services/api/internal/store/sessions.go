package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// CreateSession stores a new session, revokes the session it replaces (the
// browser's previous cookie), resets the failed sign-ins of the user's
// email from the session's client and audits the sign-in, in one
// transaction.
func (s *Store) CreateSession(ctx context.Context, sess auth.Session) error {
	issued := orNow(sess.IssuedAt).UTC()
	row := sessionRow{ID: sess.ID, UserID: sess.UserID, Hash: sess.Hash, CreatedAt: issued, ExpiresAt: sess.ExpiresAt, LastSeenAt: issued}
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(&row).Error; err != nil {
			return err
		}
		if sess.Replaces != uuid.Nil {
			err := tx.Exec("UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", issued, sess.Replaces).Error
			if err != nil {
				return err
			}
		}
		err := tx.Exec("DELETE FROM login_failures WHERE email = (SELECT lower(email) FROM users WHERE id = ?) AND client = ?",
			sess.UserID, sess.Client).Error
		if err != nil {
			return err
		}
		details := map[string]any{}
		if sess.Method != "" {
			details["method"] = sess.Method
		}
		if sess.Replaces != uuid.Nil {
			details["replaces"] = sess.Replaces.String()
		}
		return audit(tx, auth.Actor{UserID: sess.UserID}, auditEntry{Action: "session.create", Kind: "session", ID: sess.ID.String(), Details: details})
	})
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// RotateSession stores next in place of old: old is marked replaced and
// its expiry moved to graceEnd (when that is sooner). It returns false and
// stores nothing when old was already replaced, so parallel requests
// rotate a session once. A rotation is not audited: it is bookkeeping of
// one sign-in.
func (s *Store) RotateSession(ctx context.Context, old uuid.UUID, next auth.Session, graceEnd time.Time) (bool, error) {
	issued := orNow(next.IssuedAt).UTC()
	rotated := false
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		res := tx.Exec(`UPDATE sessions SET replaced_by = ?, expires_at = least(expires_at, ?)
			WHERE id = ? AND replaced_by IS NULL AND revoked_at IS NULL`, next.ID, graceEnd.UTC(), old)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return nil
		}
		row := sessionRow{ID: next.ID, UserID: next.UserID, Hash: next.Hash, CreatedAt: issued, ExpiresAt: next.ExpiresAt, LastSeenAt: issued}
		if err := tx.Create(&row).Error; err != nil {
			return err
		}
		rotated = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("rotate session %s: %w", old, err)
	}
	return rotated, nil
}

// RevokeUserSessions ends every live session of user and audits
// session.revoke_all with the count; API tokens are untouched.
func (s *Store) RevokeUserSessions(ctx context.Context, user uuid.UUID, actor auth.Actor) (int, error) {
	var n int64
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		res := tx.Exec("UPDATE sessions SET revoked_at = now() WHERE user_id = ? AND revoked_at IS NULL", user)
		if res.Error != nil {
			return res.Error
		}
		n = res.RowsAffected
		return audit(tx, actor, auditEntry{
			Action: "session.revoke_all", Kind: "user", ID: user.String(), Details: map[string]any{"sessions": n},
		})
	})
	if err != nil {
		return 0, fmt.Errorf("revoke sessions of %s: %w", user, err)
	}
	return int(n), nil
}
