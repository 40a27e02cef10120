package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/members"
)

// orgUserRow is a user with their last sign-in.
type orgUserRow struct {
	ID           uuid.UUID  `gorm:"column:id"`
	OrgID        uuid.UUID  `gorm:"column:org_id"`
	Email        string     `gorm:"column:email"`
	Name         string     `gorm:"column:name"`
	IsAdmin      bool       `gorm:"column:is_admin"`
	CreatedAt    time.Time  `gorm:"column:created_at"`
	DisabledAt   *time.Time `gorm:"column:disabled_at"`
	LastSignInAt *time.Time `gorm:"column:last_sign_in_at"`
}

// userProjectRow is one membership of a listed user.
type userProjectRow struct {
	UserID    uuid.UUID `gorm:"column:user_id"`
	ProjectID uuid.UUID `gorm:"column:project_id"`
	Slug      string    `gorm:"column:slug"`
	Name      string    `gorm:"column:name"`
	Role      string    `gorm:"column:role"`
}

// lastSignInSQL is a user's newest session that a sign-in started: a
// rotation's session is another session's replaced_by, and does not count.
const lastSignInSQL = `(SELECT max(s.created_at) FROM sessions s
	WHERE s.user_id = users.id
	AND NOT EXISTS (SELECT 1 FROM sessions r WHERE r.user_id = users.id AND r.replaced_by = s.id)) AS last_sign_in_at`

// containsPattern is the ILIKE pattern (escape character \) of the
// values containing text: its wildcards and escape character are escaped,
// so a search for "a_b" matches only that text.
func containsPattern(text string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(text) + "%"
}

// ListOrgUsers returns one page of q.Org's users; see members.Store.
func (s *Store) ListOrgUsers(ctx context.Context, q members.UserQuery) ([]members.OrgUser, error) {
	db := s.conn(ctx).Table("users").
		Select("id, org_id, email, name, is_admin, created_at, disabled_at, "+lastSignInSQL).Where("org_id = ?", q.Org)
	if q.Text != "" {
		pattern := containsPattern(q.Text)
		db = db.Where(`(email ILIKE ? ESCAPE '\' OR name ILIKE ? ESCAPE '\')`, pattern, pattern)
	}
	var rows []orgUserRow
	if err := keyset(db, q.Page).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	out := make([]members.OrgUser, len(rows))
	ids := make([]uuid.UUID, len(rows))
	at := make(map[uuid.UUID]int, len(rows))
	for i := range rows {
		r := &rows[i]
		u := members.User{ID: r.ID, OrgID: r.OrgID, Email: r.Email, Name: r.Name, OrgAdmin: r.IsAdmin, Disabled: r.DisabledAt != nil}
		out[i] = members.OrgUser{User: u, CreatedAt: r.CreatedAt.UTC(), Projects: []members.ProjectRole{}}
		if r.LastSignInAt != nil {
			out[i].LastSignInAt = r.LastSignInAt.UTC()
		}
		ids[i], at[r.ID] = r.ID, i
	}
	if len(ids) == 0 {
		return out, nil
	}
	var projects []userProjectRow
	err := s.conn(ctx).Raw(`SELECT m.user_id, p.id AS project_id, p.slug, p.name, m.role
		FROM memberships m JOIN projects p ON p.id = m.project_id
		WHERE m.user_id = ANY(?::uuid[]) ORDER BY p.slug`, uuidArray(ids)).Scan(&projects).Error
	if err != nil {
		return nil, fmt.Errorf("list users' projects: %w", err)
	}
	for _, p := range projects {
		u := &out[at[p.UserID]]
		u.Projects = append(u.Projects, members.ProjectRole{ProjectID: p.ProjectID, Slug: p.Slug, Name: p.Name, Role: auth.Role(p.Role)})
	}
	return out, nil
}
