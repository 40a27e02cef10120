package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// ListRuns returns up to f.Page.Limit+1 runs matching f, newest first
// (created_at DESC, id DESC), starting after f.Page.After. A filter with
// no projects and not AllProjects matches nothing and runs no query.
func (s *Store) ListRuns(ctx context.Context, f runs.Filter) ([]runs.Run, error) {
	q, args, ok := listRunsQuery(f)
	if !ok {
		return nil, nil
	}
	var rows []runRow
	if err := s.conn(ctx).Raw(q, args...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	out := make([]runs.Run, len(rows))
	for i := range rows {
		run, err := runFromRow(rows[i])
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		out[i] = run
	}
	return out, nil
}

// listRunsQuery builds the SQL of ListRuns; ok is false when f matches no
// project. Each shape reads an index in list order, so a page costs the
// same however deep it is:
//
//   - one project: runs_list_idx (or runs_test_idx, runs_status_idx, the
//     labels GIN index, as the planner sees fit), stopping after the page;
//   - every project: runs_created_idx;
//   - several projects: one bounded index scan per project (LATERAL), whose
//     at most limit×projects rows are merged and cut to the page. A plain
//     project_id = ANY(...) would instead read every run of those projects
//     and sort them, because an index scan over a list of keys does not
//     return rows in index order (before Postgres 17).
func listRunsQuery(f runs.Filter) (q string, args []any, ok bool) {
	if !f.AllProjects && len(f.ProjectIDs) == 0 {
		return "", nil, false
	}
	conds, args := runConds(f)
	limit := fetchLimit(f.Page)
	const order = " ORDER BY created_at DESC, id DESC LIMIT ?"
	switch {
	case f.AllProjects:
		return "SELECT * FROM runs WHERE " + where(conds) + order, append(args, limit), true
	case len(f.ProjectIDs) == 1:
		conds = append([]string{"project_id = ?"}, conds...)
		args = append([]any{f.ProjectIDs[0]}, args...)
		return "SELECT * FROM runs WHERE " + where(conds) + order, append(args, limit), true
	default:
		conds = append([]string{"project_id = p.id"}, conds...)
		q = "SELECT r.* FROM unnest(?::uuid[]) AS p (id) CROSS JOIN LATERAL (SELECT * FROM runs WHERE " +
			where(conds) + order + ") AS r ORDER BY r.created_at DESC, r.id DESC LIMIT ?"
		args = append([]any{uuidArray(dedupe(f.ProjectIDs))}, args...)
		return q, append(args, limit, limit), true
	}
}

// runConds returns the conditions of f other than the projects.
func runConds(f runs.Filter) (conds []string, args []any) {
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if f.TestID != uuid.Nil {
		add("test_id = ?", f.TestID)
	}
	switch len(f.Statuses) {
	case 0:
	case 1: // an equality keeps runs_status_idx in list order; = ANY would not
		add("status = ?", string(f.Statuses[0]))
	default:
		add("status = ANY(?::text[])", statusArray(f.Statuses))
	}
	if len(f.Labels) > 0 {
		// The space after @> matters: GORM reads "@name" as a named parameter.
		add("labels @> ?::jsonb", string(labelsJSON(f.Labels)))
	}
	if !f.Since.IsZero() {
		add("created_at >= ?", f.Since)
	}
	if !f.Until.IsZero() {
		add("created_at < ?", f.Until)
	}
	if f.Page.After != nil {
		add("(created_at, id) < (?, ?)", f.Page.After.CreatedAt, f.Page.After.ID)
	}
	return conds, args
}

// where joins conditions with AND; none is TRUE.
func where(conds []string) string {
	if len(conds) == 0 {
		return "TRUE"
	}
	return strings.Join(conds, " AND ")
}

// dedupe returns ids without repeats, in first-seen order.
func dedupe(ids []uuid.UUID) []uuid.UUID {
	seen := make(map[uuid.UUID]bool, len(ids))
	out := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
