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
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
)

// orgRow is a row of orgs.
type orgRow struct {
	ID              uuid.UUID `gorm:"column:id;primaryKey"`
	Slug            string    `gorm:"column:slug"`
	Name            string    `gorm:"column:name"`
	TargetAllowList textArray `gorm:"column:target_allow_list"`
	CreatedAt       time.Time `gorm:"column:created_at"`
}

// TableName returns the table of orgRow.
func (orgRow) TableName() string { return "orgs" }

// projectRow is a row of projects.
type projectRow struct {
	ID          uuid.UUID    `gorm:"column:id;primaryKey"`
	OrgID       uuid.UUID    `gorm:"column:org_id"`
	Slug        string       `gorm:"column:slug"`
	Name        string       `gorm:"column:name"`
	Description string       `gorm:"column:description"`
	Public      bool         `gorm:"column:public_results"`
	AllowList   textArray    `gorm:"column:target_allow_list"`
	Granted     textArray    `gorm:"column:target_allow_granted"`
	Limits      limitColumns `gorm:"embedded"`
	// IntervalDays and RunDays are the project's retention (00020).
	IntervalDays *int      `gorm:"column:interval_retention_days"`
	RunDays      *int      `gorm:"column:run_retention_days"`
	CreatedAt    time.Time `gorm:"column:created_at"`
	UpdatedAt    time.Time `gorm:"column:updated_at"`
}

// TableName returns the table of projectRow.
func (projectRow) TableName() string { return "projects" }

// membershipRow is a row of memberships.
type membershipRow struct {
	ProjectID uuid.UUID `gorm:"column:project_id;primaryKey"`
	UserID    uuid.UUID `gorm:"column:user_id;primaryKey"`
	Role      string    `gorm:"column:role"`
	CreatedAt time.Time `gorm:"column:created_at"`
}

// TableName returns the table of membershipRow.
func (membershipRow) TableName() string { return "memberships" }

// projectToRow maps a project to its row.
func projectToRow(p projects.Project) projectRow {
	now := time.Now().UTC()
	created, updated := p.CreatedAt, p.UpdatedAt
	if created.IsZero() {
		created = now
	}
	if updated.IsZero() {
		updated = created
	}
	return projectRow{
		ID: p.ID, OrgID: p.OrgID, Slug: p.Slug, Name: p.Name, Description: p.Description,
		Public: p.PublicResults, AllowList: textArray(p.TargetAllowList), Granted: textArray(p.TargetAllowGranted), Limits: limitsToColumns(p.Limits),
		IntervalDays: p.Retention.IntervalDays, RunDays: p.Retention.RunDays,
		CreatedAt: created, UpdatedAt: updated,
	}
}

// projectFromRow maps a row to a project.
func projectFromRow(r projectRow) projects.Project {
	return projects.Project{
		ID: r.ID, OrgID: r.OrgID, Slug: r.Slug, Name: r.Name, Description: r.Description,
		PublicResults: r.Public, TargetAllowList: []string(r.AllowList), TargetAllowGranted: []string(r.Granted),
		Limits: r.Limits.overrides(), Retention: projects.Retention{IntervalDays: r.IntervalDays, RunDays: r.RunDays}, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

// CreateProject inserts p, makes admin its admin member and writes an
// audit entry in one transaction; Conflict when the slug is taken.
func (s *Store) CreateProject(ctx context.Context, p projects.Project, admin uuid.UUID, actor auth.Actor) (projects.Project, error) {
	row := projectToRow(p)
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.Returning{}).Create(&row).Error; err != nil {
			if isUnique(err) {
				return apperr.New(apperr.Conflict, "project slug %q is taken", p.Slug)
			}
			return err
		}
		m := membershipRow{ProjectID: row.ID, UserID: admin, Role: string(auth.Admin), CreatedAt: row.CreatedAt}
		if err := tx.Create(&m).Error; err != nil {
			return fmt.Errorf("add admin member: %w", err)
		}
		return audit(tx, actor, auditEntry{
			Action: "project.create", Kind: "project", ID: row.ID.String(), Project: row.ID,
			Details: map[string]any{"slug": row.Slug, "admin": admin},
		})
	})
	if err != nil {
		return projects.Project{}, fmt.Errorf("create project: %w", err)
	}
	return projectFromRow(row), nil
}

// GetProject returns a project by id; NotFound when there is none.
func (s *Store) GetProject(ctx context.Context, id uuid.UUID) (projects.Project, error) {
	var row projectRow
	if err := s.conn(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return projects.Project{}, classify(err, "get project", "project", id)
	}
	return projectFromRow(row), nil
}

// GetProjectBySlug returns a project by slug; NotFound when there is none.
func (s *Store) GetProjectBySlug(ctx context.Context, slug string) (projects.Project, error) {
	var row projectRow
	err := s.conn(ctx).Where("slug = ?", slug).Order("created_at, id").Take(&row).Error
	if err != nil {
		return projects.Project{}, classify(err, "get project by slug", "project", fmt.Sprintf("%q", slug))
	}
	return projectFromRow(row), nil
}

// UpdateProject stores p's name, description, public_results, allow-list,
// limits and updated_at and writes an audit entry; NotFound when the
// project is gone.
func (s *Store) UpdateProject(ctx context.Context, p projects.Project, actor auth.Actor) (projects.Project, error) {
	var row projectRow
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		lc := limitsToColumns(p.Limits)
		res := tx.Model(&row).Clauses(clause.Returning{}).Where("id = ?", p.ID).Updates(map[string]any{
			"name": p.Name, "description": p.Description, "updated_at": orNow(p.UpdatedAt),
			"public_results": p.PublicResults, "target_allow_list": textArray(p.TargetAllowList),
			"target_allow_granted": textArray(p.TargetAllowGranted), "max_qps": lc.MaxQPS,
			"max_connections": lc.MaxConnections, "max_duration_seconds": lc.MaxDurationSeconds,
			"max_agents": lc.MaxAgents, "max_concurrent_runs": lc.MaxConcurrentRuns,
			"interval_retention_days": p.Retention.IntervalDays, "run_retention_days": p.Retention.RunDays,
		})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return notFound("project", p.ID)
		}
		return audit(tx, actor, auditEntry{
			Action: "project.update", Kind: "project", ID: p.ID.String(), Project: p.ID,
			Details: map[string]any{
				"name": p.Name, "public_results": p.PublicResults, "target_allow_list": p.TargetAllowList,
				"target_allow_granted": p.TargetAllowGranted,
				"limits":               lc.audit(),
				"retention": map[string]any{
					"interval_retention_days": p.Retention.IntervalDays, "run_retention_days": p.Retention.RunDays,
				},
			},
		})
	})
	if err != nil {
		return projects.Project{}, fmt.Errorf("update project: %w", err)
	}
	return projectFromRow(row), nil
}

// ListProjects returns up to page.Limit+1 of the projects ids (every
// project when all), newest first.
func (s *Store) ListProjects(ctx context.Context, ids []uuid.UUID, all bool, page paging.Request) ([]projects.Project, error) {
	if !all && len(ids) == 0 {
		return nil, nil
	}
	q := s.conn(ctx).Model(&projectRow{})
	if !all {
		q = q.Where("id = ANY(?::uuid[])", uuidArray(ids))
	}
	var rows []projectRow
	if err := keyset(q, page).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	out := make([]projects.Project, len(rows))
	for i := range rows {
		out[i] = projectFromRow(rows[i])
	}
	return out, nil
}

// PublicProjects returns the ids of the projects that publish their results.
func (s *Store) PublicProjects(ctx context.Context) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	if err := s.conn(ctx).Model(&projectRow{}).Where("public_results").Order("created_at").Pluck("id", &ids).Error; err != nil {
		return nil, fmt.Errorf("list public projects: %w", err)
	}
	return ids, nil
}

// ProjectLimits returns the limits project id sets; NotFound when there is
// no such project.
func (s *Store) ProjectLimits(ctx context.Context, id uuid.UUID) (policy.Overrides, error) {
	var lc limitColumns
	err := s.conn(ctx).Model(&projectRow{}).Where("id = ?", id).Take(&lc).Error
	if err != nil {
		return policy.Overrides{}, classify(err, "get project limits", "project", id)
	}
	return lc.overrides(), nil
}

// DefaultOrg returns the oldest organisation, which new projects join;
// NotFound before bootstrap.
func (s *Store) DefaultOrg(ctx context.Context) (uuid.UUID, error) {
	var row orgRow
	if err := s.conn(ctx).Order("created_at, id").Take(&row).Error; err != nil {
		return uuid.Nil, classify(err, "default org", "organisation", "default")
	}
	return row.ID, nil
}
