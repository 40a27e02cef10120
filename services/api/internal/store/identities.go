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

// identityLinkRow is a row of user_identities: an identity provider's
// issuer and subject linked to a user (migrations/00016_user_identities.sql).
type identityLinkRow struct {
	Issuer    string    `gorm:"column:issuer;primaryKey"`
	Subject   string    `gorm:"column:subject;primaryKey"`
	UserID    uuid.UUID `gorm:"column:user_id"`
	Email     string    `gorm:"column:email"`
	CreatedAt time.Time `gorm:"column:created_at"`
}

// TableName returns the table of identityLinkRow.
func (identityLinkRow) TableName() string { return "user_identities" }

// loginFromRow maps a user to what sign-in needs.
func loginFromRow(row userRow) auth.Login {
	return auth.Login{UserID: row.ID, PasswordHash: fromNullString(row.PasswordHash), Disabled: row.DisabledAt != nil}
}

// LoginByIdentity finds the user linked to issuer and subject; NotFound
// when none is.
func (s *Store) LoginByIdentity(ctx context.Context, issuer, subject string) (auth.Login, error) {
	var row userRow
	err := s.conn(ctx).Where("id = (SELECT user_id FROM user_identities WHERE issuer = ? AND subject = ?)", issuer, subject).
		Take(&row).Error
	if err != nil {
		return auth.Login{}, classify(err, "find user by identity", "user", issuer+" "+subject)
	}
	return loginFromRow(row), nil
}

// ProvisionUser creates a password-less user in the default organisation
// linked to ext and audits user.create (method oidc), in one transaction;
// Conflict when a user has ext's email already.
func (s *Store) ProvisionUser(ctx context.Context, ext auth.ExternalIdentity) (auth.Login, error) {
	var row userRow
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var org orgRow
		if err := tx.Order("created_at, id").Take(&org).Error; err != nil {
			return fmt.Errorf("default org: %w", err)
		}
		now := time.Now().UTC()
		row = userRow{ID: uuid.New(), OrgID: org.ID, Email: ext.Email, Name: ext.Name, CreatedAt: now}
		if err := tx.Create(&row).Error; err != nil {
			if isUnique(err) {
				return apperr.New(apperr.Conflict, "a user with email %q exists; they link this identity from their own session", ext.Email)
			}
			return err
		}
		link := identityLinkRow{Issuer: ext.Issuer, Subject: ext.Subject, UserID: row.ID, Email: ext.Email, CreatedAt: now}
		if err := tx.Create(&link).Error; err != nil {
			return err
		}
		return audit(tx, auth.Actor{}, auditEntry{
			Action: "user.create", Kind: "user", ID: row.ID.String(),
			Details: map[string]any{"email": ext.Email, "method": "oidc", "issuer": ext.Issuer, "subject": ext.Subject},
		})
	})
	if err != nil {
		return auth.Login{}, fmt.Errorf("provision user %q: %w", ext.Email, err)
	}
	return loginFromRow(row), nil
}

// LinkIdentity links ext to user and audits user.identity_link; linking
// it again to the same user changes nothing; Conflict when it is linked to
// another user.
func (s *Store) LinkIdentity(ctx context.Context, user uuid.UUID, ext auth.ExternalIdentity, actor auth.Actor) error {
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var owners []uuid.UUID
		err := tx.Raw("SELECT user_id FROM user_identities WHERE issuer = ? AND subject = ? FOR UPDATE", ext.Issuer, ext.Subject).
			Scan(&owners).Error
		switch {
		case err != nil:
			return err
		case len(owners) == 1 && owners[0] == user:
			return nil
		case len(owners) == 1:
			return apperr.New(apperr.Conflict, "this single sign-on identity is linked to another user")
		}
		link := identityLinkRow{Issuer: ext.Issuer, Subject: ext.Subject, UserID: user, Email: ext.Email, CreatedAt: time.Now().UTC()}
		if err := tx.Create(&link).Error; err != nil {
			if isUnique(err) {
				return apperr.New(apperr.Conflict, "this single sign-on identity is linked to another user")
			}
			return err
		}
		return audit(tx, actor, auditEntry{
			Action: "user.identity_link", Kind: "user", ID: user.String(),
			Details: map[string]any{"email": ext.Email, "issuer": ext.Issuer, "subject": ext.Subject},
		})
	})
	if err != nil {
		return fmt.Errorf("link identity to %s: %w", user, err)
	}
	return nil
}
