package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
)

// bootstrapLock is the pg_advisory_xact_lock key that serialises
// bootstraps of API replicas starting together ("barrage\0" as an int64).
const bootstrapLock int64 = 0x6261727261676500

// Bootstrap is what the first start of the API creates: an organisation,
// a project, an admin user who is admin of the project, and an unscoped
// API token for that user, which expires at TokenExpiresAt. Zero fields take the defaults Normalize fills.
type Bootstrap struct {
	// OrgSlug and OrgName name the organisation; default "default", "Default".
	OrgSlug string
	OrgName string
	// ProjectSlug and ProjectName name the project; default "default", "Default".
	ProjectSlug string
	ProjectName string
	// AdminEmail is the admin's sign-in email; required.
	AdminEmail string
	// AdminName is the admin's display name; default "Admin".
	AdminName string
	// AdminPasswordHash is the argon2id hash of the admin's password; empty
	// for an admin who signs in with the token only.
	AdminPasswordHash string
	// TokenHash and TokenHint are the SHA-256 and the first characters of
	// the admin token's secret; TokenHash is required.
	TokenHash []byte
	TokenHint string
	// TokenName names the token; default "bootstrap".
	TokenName string
	// TokenID is the token's id; uuid.Nil picks one.
	TokenID uuid.UUID
	// TokenExpiresAt is when the token stops working; zero for never.
	TokenExpiresAt time.Time
	// TargetAllowList is the project's target allow-list; nil means
	// loopback only (127.0.0.0/8, ::1, localhost), so a first run against
	// a local echo server works out of the box and nothing else is reached
	// until an admin lists it. An empty non-nil list opens nothing. The
	// entries OrgTargetPolicy does not cover are granted to the project, as
	// if the first org admin had listed them.
	TargetAllowList []string
	// OrgTargetPolicy is the organisation's target policy, the bound of
	// what project admins may list; nil means every public address ("*").
	OrgTargetPolicy []string
}

// Normalize fills the zero fields of b with the defaults.
func (b *Bootstrap) Normalize() {
	def := func(s *string, v string) {
		if strings.TrimSpace(*s) == "" {
			*s = v
		}
	}
	def(&b.OrgSlug, "default")
	def(&b.OrgName, "Default")
	def(&b.ProjectSlug, "default")
	def(&b.ProjectName, "Default")
	def(&b.AdminName, "Admin")
	def(&b.TokenName, "bootstrap")
	if b.TargetAllowList == nil {
		b.TargetAllowList = []string{"127.0.0.0/8", "::1", "localhost"}
	}
	if b.OrgTargetPolicy == nil {
		b.OrgTargetPolicy = []string{"*"}
	}
}

// Validate reports a missing required field.
func (b *Bootstrap) Validate() error {
	if strings.TrimSpace(b.AdminEmail) == "" {
		return errors.New("bootstrap: the admin email is required")
	}
	if len(b.TokenHash) == 0 {
		return errors.New("bootstrap: the admin token hash is required")
	}
	return nil
}

// Bootstrap creates what b describes when the database has no users yet and
// reports whether it did; otherwise it changes nothing. It runs in one
// transaction under an advisory lock, so replicas starting together
// bootstrap once.
func (s *Store) Bootstrap(ctx context.Context, b Bootstrap) (created bool, err error) {
	b.Normalize()
	if err := b.Validate(); err != nil {
		return false, err
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", bootstrapLock).Error; err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		var users int64
		if err := tx.Raw("SELECT count(*) FROM (SELECT 1 FROM users LIMIT 1) AS u").Scan(&users).Error; err != nil {
			return fmt.Errorf("count users: %w", err)
		}
		if users > 0 {
			return nil
		}
		created = true
		return bootstrap(tx, b)
	})
	if err != nil {
		return false, fmt.Errorf("bootstrap: %w", err)
	}
	return created, nil
}

// bootstrap inserts the rows of b in tx.
func bootstrap(tx *gorm.DB, b Bootstrap) error {
	now := time.Now().UTC()
	org := orgRow{ID: uuid.New(), Slug: b.OrgSlug, Name: b.OrgName, TargetAllowList: textArray(b.OrgTargetPolicy), CreatedAt: now}
	granted, err := (policy.Targets{Org: b.OrgTargetPolicy}).NarrowAllowList(b.TargetAllowList, true)
	if err != nil {
		return fmt.Errorf("the first project's target allow-list: %w", err)
	}
	proj := projectRow{
		ID: uuid.New(), OrgID: org.ID, Slug: b.ProjectSlug, Name: b.ProjectName,
		AllowList: textArray(b.TargetAllowList), Granted: textArray(granted), CreatedAt: now, UpdatedAt: now,
	}
	user := userRow{
		ID: uuid.New(), OrgID: org.ID, Email: b.AdminEmail, Name: b.AdminName,
		PasswordHash: nullString(b.AdminPasswordHash), IsAdmin: true, CreatedAt: now,
	}
	member := membershipRow{ProjectID: proj.ID, UserID: user.ID, Role: string(auth.Admin), CreatedAt: now}
	if b.TokenID == uuid.Nil {
		b.TokenID = uuid.New()
	}
	token := tokenRow{
		ID: b.TokenID, UserID: user.ID, Name: b.TokenName, Hash: b.TokenHash, Hint: b.TokenHint, CreatedAt: now,
		ExpiresAt: nullTime(b.TokenExpiresAt),
	}
	for _, row := range []any{&org, &proj, &user, &member, &token} {
		if err := tx.Create(row).Error; err != nil {
			return fmt.Errorf("insert %T: %w", row, err)
		}
	}
	return audit(tx, auth.Actor{}, auditEntry{
		Action: "system.bootstrap", Kind: "org", ID: org.ID.String(), Project: proj.ID,
		Details: map[string]any{"admin": user.ID, "token": token.ID},
	})
}

// SystemUser returns the oldest enabled org admin, in whose name the CLI
// mints tokens; NotFound before bootstrap.
func (s *Store) SystemUser(ctx context.Context) (uuid.UUID, error) {
	var row userRow
	err := s.conn(ctx).Where("is_admin AND disabled_at IS NULL").Order("created_at, id").Take(&row).Error
	if err != nil {
		return uuid.Nil, classify(err, "system user", "user", "admin")
	}
	return row.ID, nil
}
