package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/benchproc"
	"github.com/barrage-dev/barrage/services/api/internal/store"
)

// bench runs every phase: reset the database, boot the API, seed, time
// the lists, explain the list queries, time the run creation.
func bench(ctx context.Context, cfg config, logw io.Writer) (*report, error) {
	rep := &report{cfg: cfg, started: time.Now().UTC(), machine: machineInfo(cfg.apiBin), loadBefore: benchproc.LoadAvg()}
	progress(logw, "resetting database %s", store.RedactURL(cfg.databaseURL))
	if err := benchproc.ResetDatabase(ctx, cfg.databaseURL); err != nil {
		return nil, err
	}
	token := auth.NewToken().Text
	srv, err := startServer(ctx, cfg, token)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := srv.stop(); err != nil {
			progress(logw, "stopping the API: %v", err)
		}
	}()
	rep.server = srv.desc
	progress(logw, "barrage-api at %s, %s", srv.base, srv.desc)
	db, err := pgx.Connect(ctx, cfg.databaseURL)
	if err != nil {
		return nil, fmt.Errorf("connect to the bench database: %w", err)
	}
	defer func() { _ = db.Close(context.WithoutCancel(ctx)) }()
	if err := rep.readPostgres(ctx, db); err != nil {
		return nil, err
	}
	cl := newClient(srv.base, token, cfg.postWorkers)
	defer cl.close()
	return rep, measure(ctx, rep, srv, cl, db, logw)
}

// measure seeds the table and runs the measurements into rep. The plans
// are taken before the POST phase adds runs, on the table the lists saw.
func measure(ctx context.Context, rep *report, srv *server, cl *client, db *pgx.Conn, logw io.Writer) error {
	cfg := rep.cfg
	progress(logw, "seeding %d runs", cfg.runs)
	var err error
	if rep.seed, err = seed(ctx, db, cl, cfg.runs); err != nil {
		return err
	}
	progress(logw, "seeded %d runs (%d in project default) in %v", rep.seed.total, rep.seed.inDefault, rep.seed.took.Round(time.Millisecond))
	if cfg.compareSamples > 0 {
		progress(logw, "seeding run_results for the completed runs")
		if rep.compare.seed, err = seedResults(ctx, db); err != nil {
			return err
		}
		progress(logw, "seeded %d results in %v", rep.compare.seed.rows, rep.compare.seed.took.Round(time.Millisecond))
	}
	pr := newProbe(srv.pid)
	project := rep.seed.projectID
	if rep.lists, err = measureLists(ctx, cfg, cl, db, pr, logw, project); err != nil {
		return err
	}
	rep.listDials = cl.dials.Load()
	progress(logw, "explaining the list queries")
	if rep.plans, err = explainCases(ctx, db, rep.lists.cases, cfg.limit, project); err != nil {
		return err
	}
	if cfg.compareSamples > 0 {
		progress(logw, "timing GET /runs/compare: %d warm-up + %d timed requests per case", cfg.warmup, cfg.compareSamples)
		seeded := rep.compare.seed
		if rep.compare, err = measureCompare(ctx, cfg, cl, db, pr, project); err != nil {
			return err
		}
		rep.compare.seed = seeded
	}
	if cfg.postFor > 0 {
		progress(logw, "POST /runs: %d workers for %v", cfg.postWorkers, cfg.postFor)
		if rep.posts, err = measurePosts(ctx, cfg, cl, db, pr); err != nil {
			return err
		}
	}
	rep.dials = cl.dials.Load()
	rep.loadAfter = benchproc.LoadAvg()
	return nil
}

// readPostgres records the server version and the settings that matter.
func (r *report) readPostgres(ctx context.Context, db *pgx.Conn) error {
	err := db.QueryRow(ctx, `SELECT current_setting('server_version'), current_setting('shared_buffers'),
		current_setting('work_mem'), current_setting('random_page_cost')`).
		Scan(&r.pgVersion, &r.pgSharedBuffers, &r.pgWorkMem, &r.pgRandomPageCost)
	if err != nil {
		return fmt.Errorf("read the Postgres settings: %w", err)
	}
	return nil
}
