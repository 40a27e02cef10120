package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// failureMemory is how long a failed sign-in counts: a failure after a
// quiet day starts the count again, and older rows are pruned.
const failureMemory = 24 * time.Hour

// pruneBatch bounds the stale rows of login_failures one failure deletes.
const pruneBatch = 100

// loginFailureRow is a row of login_failures.
type loginFailureRow struct {
	Email        string     `gorm:"column:email;primaryKey"`
	Client       string     `gorm:"column:client;primaryKey"`
	Failures     int        `gorm:"column:failures"`
	LastFailedAt time.Time  `gorm:"column:last_failed_at"`
	LockedUntil  *time.Time `gorm:"column:locked_until"`
}

// TableName returns the table of loginFailureRow.
func (loginFailureRow) TableName() string { return "login_failures" }

// LoginLock returns the lockout state of email tried from client at at;
// the zero LoginLock when it has no recent failures.
func (s *Store) LoginLock(ctx context.Context, email, client string, at time.Time) (auth.LoginLock, error) {
	var rows []loginFailureRow
	err := s.conn(ctx).Where("email = ? AND client = ? AND last_failed_at > ?", strings.ToLower(email), client, at.Add(-failureMemory)).
		Limit(1).Find(&rows).Error
	if err != nil {
		return auth.LoginLock{}, fmt.Errorf("login lock: %w", err)
	}
	if len(rows) == 0 {
		return auth.LoginLock{}, nil
	}
	return auth.LoginLock{Failures: rows[0].Failures, LockedUntil: fromNullTime(rows[0].LockedUntil)}, nil
}

// FailLogin audits a failed sign-in as auth.login_failed and, unless it
// was refused while locked, counts it against its email and client and
// locks that pair for policy.For(count), auditing auth.locked, in one
// transaction. Each call
// also prunes a few rows older than failureMemory.
func (s *Store) FailLogin(ctx context.Context, f auth.LoginFailure, policy auth.Lockout) (auth.LoginLock, error) {
	email, at := strings.ToLower(f.Email), orNow(f.At).UTC()
	var lock auth.LoginLock
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		details := map[string]any{"email": f.Email, "client": f.Client}
		if f.Refused {
			details["locked"] = true
		}
		if err := audit(tx, auth.Actor{}, auditEntry{Action: "auth.login_failed", Kind: "user", ID: f.Email, Details: details}); err != nil {
			return err
		}
		if f.Refused {
			return nil
		}
		var row loginFailureRow
		err := tx.Raw(`INSERT INTO login_failures (email, client, failures, last_failed_at) VALUES (?, ?, 1, ?)
			ON CONFLICT (email, client) DO UPDATE SET
				failures = CASE WHEN login_failures.last_failed_at <= ? THEN 1 ELSE login_failures.failures + 1 END,
				last_failed_at = EXCLUDED.last_failed_at
			RETURNING email, client, failures, last_failed_at, locked_until`, email, f.Client, at, at.Add(-failureMemory)).Scan(&row).Error
		if err != nil {
			return err
		}
		lock.Failures = row.Failures
		if d := policy.For(row.Failures); d > 0 {
			lock.LockedUntil = at.Add(d)
			err = tx.Exec("UPDATE login_failures SET locked_until = ? WHERE email = ? AND client = ?", lock.LockedUntil, email, f.Client).Error
			if err != nil {
				return err
			}
			err = audit(tx, auth.Actor{UserID: f.User}, auditEntry{Action: "auth.locked", Kind: "user", ID: f.Email, Details: map[string]any{
				"email": f.Email, "client": f.Client, "failures": row.Failures, "locked_until": lock.LockedUntil, "seconds": int(d / time.Second),
			}})
			if err != nil {
				return err
			}
		}
		return tx.Exec(`DELETE FROM login_failures WHERE (email, client) IN
			(SELECT email, client FROM login_failures WHERE last_failed_at <= ? LIMIT ?)`, at.Add(-failureMemory), pruneBatch).Error
	})
	if err != nil {
		return auth.LoginLock{}, fmt.Errorf("record failed sign-in: %w", err)
	}
	return lock, nil
}
