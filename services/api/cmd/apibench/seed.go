package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	apiclient "github.com/barrage-dev/barrage/services/api/client"

	"github.com/jackc/pgx/v5"
)

// otherProject is the slug of the project that holds a tenth of the runs,
// so that lists of the default project skip rows of another.
const otherProject = "bench-other"

// seedInfo describes the seeded table.
type seedInfo struct {
	took        time.Duration
	projectID   string // the default project
	total       int64
	inDefault   int64
	inOther     int64
	statuses    []statusCount // of the default project
	labelledAPI int64         // default-project runs with label bench=api
}

// statusCount is how many runs have a status.
type statusCount struct {
	status string
	n      int64
}

// seed creates one run through the API (the template of the others), a
// second project, then n-1 more runs with one INSERT ... SELECT, and
// vacuums and analyzes the table.
func seed(ctx context.Context, db *pgx.Conn, cl *client, n int) (seedInfo, error) {
	start := time.Now()
	status, data, _, err := cl.createRun(ctx)
	if err != nil {
		return seedInfo{}, fmt.Errorf("create the template run: %w", err)
	}
	if status != http.StatusCreated {
		return seedInfo{}, fmt.Errorf("create the template run: status %d: %s", status, snippet(data))
	}
	var tmpl apiclient.Run
	if err := json.Unmarshal(data, &tmpl); err != nil || tmpl.Id == uuid.Nil {
		return seedInfo{}, fmt.Errorf("create the template run: no id in %s", snippet(data))
	}
	var other string
	err = db.QueryRow(ctx, `INSERT INTO projects (id, org_id, slug, name, description)
		SELECT gen_random_uuid(), org_id, $1, 'Bench other', 'apibench: a tenth of the runs'
		FROM projects WHERE id = $2::uuid RETURNING id::text`, otherProject, tmpl.ProjectId.String()).Scan(&other)
	if err != nil {
		return seedInfo{}, fmt.Errorf("create project %s: %w", otherProject, err)
	}
	if _, err := db.Exec(ctx, seedSQL, n-1, tmpl.Id.String(), other); err != nil {
		return seedInfo{}, fmt.Errorf("seed runs: %w", err)
	}
	if _, err := db.Exec(ctx, "VACUUM (ANALYZE) runs"); err != nil {
		return seedInfo{}, fmt.Errorf("vacuum runs: %w", err)
	}
	info, err := countSeed(ctx, db, tmpl.ProjectId.String())
	info.took = time.Since(start)
	return info, err
}

// seedSQL inserts $1 runs copied from the run $2 (its spec, target, source,
// creator; the labels only on a fifth of them), every tenth in project $3:
// newest first, created evenly over the last 30 days; the newest 20 queued
// or running, the rest 70% completed (with verdict and summary), 20% failed,
// 10% canceled; labels env (3 values) and team (7 values).
const seedSQL = `
INSERT INTO runs (id, project_id, name, status, verdict, source, spec, thresholds, labels, target,
                  qps_requested, created_by, created_at, updated_at, started_at, ended_at, error,
                  count, errors, qps_actual, min_us, avg_us, p50_us, p90_us, p99_us, max_us)
SELECT gen_random_uuid(),
       CASE WHEN g.i % 10 = 3 THEN $3::uuid ELSE t.project_id END,
       'seed-' || g.i, s.status,
       CASE s.status WHEN 'completed' THEN CASE WHEN g.i % 9 = 0 THEN 'fail' ELSE 'pass' END
                     WHEN 'failed' THEN 'error' END,
       t.source, t.spec, t.thresholds,
       jsonb_build_object('env', (ARRAY['prod', 'staging', 'dev'])[1 + g.i % 3], 'team', 'team-' || g.i % 7)
         || CASE WHEN (g.i / 3) % 5 = 0 THEN t.labels ELSE '{}'::jsonb END,
       t.target, t.qps_requested, t.created_by, c.at,
       CASE WHEN s.status IN ('queued', 'running') THEN c.at ELSE c.at + interval '12 seconds' END,
       CASE WHEN s.status <> 'queued' THEN c.at + interval '2 seconds' END,
       CASE WHEN s.status NOT IN ('queued', 'running') THEN c.at + interval '12 seconds' END,
       CASE WHEN s.status = 'failed' THEN 'dial tcp 10.0.0.7:443: connect: connection refused' ELSE '' END,
       CASE WHEN s.status = 'completed' THEN 1000 ELSE 0 END,
       CASE WHEN s.status = 'completed' THEN g.i % 3 ELSE 0 END,
       CASE WHEN s.status = 'completed' THEN 99.9 END,
       CASE WHEN s.status = 'completed' THEN 150 + g.i % 50 END,
       CASE WHEN s.status = 'completed' THEN 900 + g.i % 100 END,
       CASE WHEN s.status = 'completed' THEN 800 + g.i % 100 END,
       CASE WHEN s.status = 'completed' THEN 1500 + g.i % 300 END,
       CASE WHEN s.status = 'completed' THEN 4000 + g.i % 1000 END,
       CASE WHEN s.status = 'completed' THEN 12000 + g.i % 5000 END
FROM generate_series(1, $1::int) AS g (i)
CROSS JOIN (SELECT * FROM runs WHERE id = $2::uuid) AS t
CROSS JOIN LATERAL (SELECT now() - interval '1 second' - (g.i * interval '30 days') / $1::int AS at) AS c
CROSS JOIN LATERAL (SELECT CASE WHEN g.i <= 10 THEN 'queued' WHEN g.i <= 20 THEN 'running'
       ELSE (ARRAY['completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'completed',
                   'failed', 'failed', 'canceled'])[1 + (g.i / 10) % 10] END AS status) AS s`

// countSeed reads the shape of the seeded table.
func countSeed(ctx context.Context, db *pgx.Conn, project string) (seedInfo, error) {
	info := seedInfo{projectID: project}
	err := db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE project_id = $1::uuid),
		count(*) FILTER (WHERE project_id <> $1::uuid),
		count(*) FILTER (WHERE project_id = $1::uuid AND labels @> '{"bench":"api"}')
		FROM runs`, project).Scan(&info.total, &info.inDefault, &info.inOther, &info.labelledAPI)
	if err != nil {
		return info, fmt.Errorf("count runs: %w", err)
	}
	rows, err := db.Query(ctx, `SELECT status, count(*) FROM runs WHERE project_id = $1::uuid
		GROUP BY status ORDER BY count(*) DESC, status`, project)
	if err != nil {
		return info, fmt.Errorf("count statuses: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sc statusCount
		if err := rows.Scan(&sc.status, &sc.n); err != nil {
			return info, fmt.Errorf("count statuses: %w", err)
		}
		info.statuses = append(info.statuses, sc)
	}
	if err := rows.Err(); err != nil {
		return info, fmt.Errorf("count statuses: %w", err)
	}
	if info.inDefault == 0 {
		return info, errors.New("no runs in the default project after seeding")
	}
	return info, nil
}
