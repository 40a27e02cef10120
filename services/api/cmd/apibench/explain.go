package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/barrage-dev/barrage/services/api/internal/paging"
)

// plan is the EXPLAIN ANALYZE of one list query.
type plan struct {
	c       *listCase
	mode    string // custom or generic
	summary string // the plan's nodes, outermost first
	exec    string // Execution Time, ms
	text    string
}

// explainCases returns the plans of the list queries of every case,
// planned both for their parameter values (custom,
// what a one-off statement gets) and generically (what a prepared
// statement may switch to after five executions: the API's driver caches
// prepared statements per connection).
func explainCases(ctx context.Context, db *pgx.Conn, cases []*listCase, limit int, project string) ([]plan, error) {
	var out []plan
	for _, c := range cases {
		q, args, err := listSQL(c, limit, project)
		if err != nil {
			return nil, err
		}
		for _, mode := range []string{"custom", "generic"} {
			text, err := explain(ctx, db, q, args, mode)
			if err != nil {
				return nil, fmt.Errorf("explain the %s page of %q: %w", c.which, c.walk.filter.name, err)
			}
			out = append(out, plan{c: c, mode: mode, text: text, summary: planSummary(text), exec: execTime(text)})
		}
	}
	return out, nil
}

// listSQL is the statement the store builds for c (see ListRuns in
// services/api/internal/store/runs_list.go), with $n placeholders, and its
// arguments as SQL literals' text.
func listSQL(c *listCase, limit int, project string) (string, []string, error) {
	conds := []string{"project_id = $1"}
	args := []string{project}
	if f := c.walk.filter; f.cond != "" {
		conds = append(conds, fmt.Sprintf(f.cond, len(args)+1))
		args = append(args, f.arg)
	}
	if c.page.cursor != "" {
		req, err := paging.ParseRequest(&c.page.cursor, nil)
		if err != nil {
			return "", nil, fmt.Errorf("decode a cursor: %w", err)
		}
		conds = append(conds, fmt.Sprintf("(created_at, id) < ($%d, $%d)", len(args)+1, len(args)+2))
		args = append(args, req.After.CreatedAt.Format(time.RFC3339Nano), req.After.ID.String())
	}
	q := "SELECT * FROM runs WHERE " + strings.Join(conds, " AND ") +
		" ORDER BY created_at DESC, id DESC LIMIT $" + strconv.Itoa(len(args)+1)
	return q, append(args, strconv.Itoa(limit+1)), nil
}

// explain prepares q and runs EXPLAIN (ANALYZE, BUFFERS) EXECUTE with args
// under plan_cache_mode force_<mode>_plan, in a transaction it rolls back.
// An error leaves the statement prepared: the caller gives up.
func explain(ctx context.Context, db *pgx.Conn, q string, args []string, mode string) (string, error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return "", fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	stmts := []string{
		"SET LOCAL plan_cache_mode = force_" + mode + "_plan",
		"PREPARE apibench_list AS " + q,
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return "", fmt.Errorf("%s: %w", s, err)
		}
	}
	lits := make([]string, len(args))
	for i, a := range args {
		lits[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
	}
	rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) EXECUTE apibench_list ("+strings.Join(lits, ", ")+")",
		pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return "", fmt.Errorf("explain: %w", err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("explain: %w", err)
	}
	// PREPARE outlives the transaction; the statement goes now.
	if _, err := tx.Exec(ctx, "DEALLOCATE apibench_list"); err != nil {
		return "", fmt.Errorf("deallocate: %w", err)
	}
	return strings.Join(lines, "\n"), nil
}

// planSummary returns the node names of an EXPLAIN text, outermost first.
func planSummary(text string) string {
	var nodes []string
	for i, line := range strings.Split(text, "\n") {
		s := strings.TrimSpace(line)
		if i > 0 && !strings.HasPrefix(s, "->") {
			continue
		}
		s = strings.TrimSpace(strings.TrimPrefix(s, "->"))
		if j := strings.Index(s, "  ("); j >= 0 {
			s = s[:j]
		}
		nodes = append(nodes, s)
	}
	return strings.Join(nodes, " → ")
}

// execTime returns the "Execution Time" of an EXPLAIN ANALYZE text, in ms.
func execTime(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Execution Time: "); ok {
			return strings.TrimSuffix(v, " ms")
		}
	}
	return "?"
}
