package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/members"
)

// memberRow is a membership joined with its user.
type memberRow struct {
	UserID    uuid.UUID `gorm:"column:user_id"`
	OrgID     uuid.UUID `gorm:"column:org_id"`
	Email     string    `gorm:"column:email"`
	Name      string    `gorm:"column:name"`
	IsAdmin   bool      `gorm:"column:is_admin"`
	Role      string    `gorm:"column:role"`
	CreatedAt time.Time `gorm:"column:created_at"`
}

// userFromRow maps a user row.
func userFromRow(r userRow) members.User {
	return members.User{ID: r.ID, OrgID: r.OrgID, Email: r.Email, Name: r.Name, OrgAdmin: r.IsAdmin, Disabled: r.DisabledAt != nil}
}

// memberFromRow maps a joined membership row.
func memberFromRow(r memberRow) members.Member {
	return members.Member{
		User: members.User{ID: r.UserID, OrgID: r.OrgID, Email: r.Email, Name: r.Name, OrgAdmin: r.IsAdmin},
		Role: auth.Role(r.Role), AddedAt: r.CreatedAt,
	}
}

// membersSQL lists a project's members with their users.
const membersSQL = `
SELECT m.user_id, u.org_id, u.email, u.name, u.is_admin, m.role, m.created_at
FROM memberships m JOIN users u ON u.id = m.user_id
WHERE m.project_id = ?`

// ListMembers returns every member of project, by email.
func (s *Store) ListMembers(ctx context.Context, project uuid.UUID) ([]members.Member, error) {
	var rows []memberRow
	if err := s.conn(ctx).Raw(membersSQL+" ORDER BY lower(u.email)", project).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("list members of %s: %w", project, err)
	}
	out := make([]members.Member, len(rows))
	for i, r := range rows {
		out[i] = memberFromRow(r)
	}
	return out, nil
}

// FindOrgUser finds a user of org by id or email; NotFound when none.
func (s *Store) FindOrgUser(ctx context.Context, org uuid.UUID, ref string) (members.User, error) {
	q := s.conn(ctx).Where("org_id = ?", org)
	if id, err := uuid.Parse(ref); err == nil {
		q = q.Where("id = ?", id)
	} else {
		q = q.Where("lower(email) = lower(?)", ref)
	}
	var row userRow
	if err := q.Take(&row).Error; err != nil {
		return members.User{}, classify(err, "find user", "user", ref)
	}
	return userFromRow(row), nil
}

// lockAdmins locks the admin memberships of project, so two changes cannot
// each remove a different one of its last two admins, and returns them.
func lockAdmins(tx *gorm.DB, project uuid.UUID) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := tx.Raw("SELECT user_id FROM memberships WHERE project_id = ? AND role = 'admin' ORDER BY user_id FOR UPDATE", project).
		Scan(&ids).Error
	if err != nil {
		return nil, fmt.Errorf("lock admins: %w", err)
	}
	return ids, nil
}

// currentRole returns user's role in project, locked, or "" when they are
// not a member.
func currentRole(tx *gorm.DB, project, user uuid.UUID) (auth.Role, error) {
	var roles []string
	err := tx.Raw("SELECT role FROM memberships WHERE project_id = ? AND user_id = ? FOR UPDATE", project, user).Scan(&roles).Error
	if err != nil {
		return "", fmt.Errorf("read role: %w", err)
	}
	if len(roles) == 0 {
		return "", nil
	}
	return auth.Role(roles[0]), nil
}

// errLastAdmin is the refusal to leave a project without an admin.
func errLastAdmin() error {
	return apperr.New(apperr.Conflict, "the project's last admin cannot be removed or demoted; make another member admin first")
}

// PutMember gives user role in project; see members.Store.
func (s *Store) PutMember(ctx context.Context, project, user uuid.UUID, role auth.Role, at time.Time, actor auth.Actor) (members.Member, error) {
	var m members.Member
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		admins, err := lockAdmins(tx, project)
		if err != nil {
			return err
		}
		prev, err := currentRole(tx, project, user)
		if err != nil {
			return err
		}
		if prev == auth.Admin && role != auth.Admin && len(admins) <= 1 {
			return errLastAdmin()
		}
		if prev != role {
			err := tx.Exec(`INSERT INTO memberships (project_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
				ON CONFLICT (project_id, user_id) DO UPDATE SET role = EXCLUDED.role`, project, user, string(role), at).Error
			if err != nil {
				return err
			}
		}
		var rows []memberRow
		if err := tx.Raw(membersSQL+" AND m.user_id = ?", project, user).Scan(&rows).Error; err != nil {
			return err
		}
		if len(rows) != 1 {
			return fmt.Errorf("member %s vanished", user)
		}
		m = memberFromRow(rows[0])
		if prev == role {
			return nil
		}
		action, details := "member.added", map[string]any{"email": m.User.Email, "role": role}
		if prev != "" {
			action, details["previous_role"] = "member.changed", prev
		}
		return audit(tx, actor, auditEntry{Action: action, Kind: "member", ID: user.String(), Project: project, Details: details})
	})
	if err != nil {
		return members.Member{}, fmt.Errorf("put member %s in %s: %w", user, project, err)
	}
	return m, nil
}

// RemoveMember removes user from project; see members.Store.
func (s *Store) RemoveMember(ctx context.Context, project, user uuid.UUID, actor auth.Actor) error {
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		admins, err := lockAdmins(tx, project)
		if err != nil {
			return err
		}
		prev, err := currentRole(tx, project, user)
		if err != nil {
			return err
		}
		if prev == "" {
			return apperr.New(apperr.NotFound, "user %s is not a member of the project", user)
		}
		if prev == auth.Admin && len(admins) <= 1 {
			return errLastAdmin()
		}
		if err := tx.Exec("DELETE FROM memberships WHERE project_id = ? AND user_id = ?", project, user).Error; err != nil {
			return err
		}
		var email string
		if err := tx.Raw("SELECT email FROM users WHERE id = ?", user).Scan(&email).Error; err != nil {
			return err
		}
		return audit(tx, actor, auditEntry{
			Action: "member.removed", Kind: "member", ID: user.String(), Project: project,
			Details: map[string]any{"email": email, "previous_role": prev},
		})
	})
	if err != nil {
		return fmt.Errorf("remove member %s from %s: %w", user, project, err)
	}
	return nil
}

// CreateUser stores u in the organisation of creator; see members.Store.
func (s *Store) CreateUser(ctx context.Context, u members.NewUser, creator auth.Actor) (members.User, error) {
	var row userRow
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		var orgs []uuid.UUID
		if err := tx.Raw("SELECT org_id FROM users WHERE id = ?", creator.UserID).Scan(&orgs).Error; err != nil {
			return err
		}
		if len(orgs) != 1 {
			return fmt.Errorf("creator %s has no organisation", creator.UserID)
		}
		row = userRow{ID: u.ID, OrgID: orgs[0], Email: u.Email, Name: u.Name, PasswordHash: nullString(u.PasswordHash), CreatedAt: orNow(u.CreatedAt)}
		if err := tx.Create(&row).Error; err != nil {
			if isUnique(err) {
				return apperr.New(apperr.Conflict, "a user with email %q exists", u.Email)
			}
			return err
		}
		return audit(tx, creator, auditEntry{Action: "user.create", Kind: "user", ID: u.ID.String(), Details: map[string]any{"email": u.Email}})
	})
	if err != nil {
		return members.User{}, fmt.Errorf("create user: %w", err)
	}
	return userFromRow(row), nil
}
