package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/benchproc"
	"github.com/barrage-dev/barrage/services/api/internal/store"
)

// bench resets the database, starts NATS and the API, and runs one phase
// per agent count.
func bench(ctx context.Context, cfg config, logw io.Writer) (*report, error) {
	rep := &report{cfg: cfg, started: time.Now().UTC()}
	progress(logw, "resetting database %s", store.RedactURL(cfg.databaseURL))
	if err := benchproc.ResetDatabase(ctx, cfg.databaseURL); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ingestbench-nats")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	ns, err := natsembed.Start(natsembed.Options{DataDir: dir, Port: -1})
	if err != nil {
		return nil, err
	}
	defer ns.Shutdown()
	nc, err := nats.Connect(ns.URL(), nats.Name("ingestbench"))
	if err != nil {
		return nil, fmt.Errorf("connect to NATS: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	if err := wire.Setup(ctx, js); err != nil {
		return nil, err
	}
	e := &env{cfg: cfg, js: js, token: auth.NewToken().Text, events: &eventLog{}, client: &http.Client{Timeout: 30 * time.Second}, stream: &http.Client{}}
	if e.srv, err = startServer(ctx, cfg.apiBin, cfg.databaseURL, ns.URL(), e.token); err != nil {
		return nil, err
	}
	defer func() {
		if err := e.srv.Stop(); err != nil {
			progress(logw, "stopping the API: %v", err)
		}
	}()
	progress(logw, "barrage-api at %s (pid %d), NATS at %s", e.srv.Base, e.srv.PID, ns.URL())
	if e.db, err = pgx.Connect(ctx, cfg.databaseURL); err != nil {
		return nil, fmt.Errorf("connect to the bench database: %w", err)
	}
	defer func() { _ = e.db.Close(context.WithoutCancel(ctx)) }()
	if err := e.db.QueryRow(ctx, `SELECT current_setting('server_version')`).Scan(&rep.pgVersion); err != nil {
		return nil, fmt.Errorf("read the Postgres version: %w", err)
	}
	sub, err := nc.Subscribe(wire.NotifySubject, e.events.listen)
	if err != nil {
		return nil, fmt.Errorf("subscribe to %s: %w", wire.NotifySubject, err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	_ = sub.SetPendingLimits(-1, -1)
	if e.pool, err = newPool(cfg.values); err != nil {
		return nil, err
	}
	if err := e.runScenario(ctx, rep, logw); err != nil {
		return nil, err
	}
	return rep, nil
}

// runScenario runs cfg.scenario on the environment and puts its figures in rep.
func (e *env) runScenario(ctx context.Context, rep *report, logw io.Writer) error {
	switch e.cfg.scenario {
	case "control-plane":
		res, err := e.controlPlane(ctx, logw)
		if err != nil {
			return fmt.Errorf("control-plane scenario: %w", err)
		}
		progress(logw, "list p99 %v, compare p99 %v, SSE lag p99 %v, API %.2f cores, %d/%d stored",
			percentile(res.list.lat, 99), percentile(res.compare.lat, 99), res.sseP99, res.apiCores, res.stored, res.published)
		rep.cp = &res
		return nil
	case "big-run":
		res, err := e.bigRun(ctx, logw)
		if err != nil {
			return fmt.Errorf("big-run scenario: %w", err)
		}
		rep.big = &res
		return nil
	}
	for _, n := range e.cfg.agents {
		res, err := e.phase(ctx, n, logw)
		if err != nil {
			return fmt.Errorf("phase of %d agents: %w", n, err)
		}
		progress(logw, "N=%d: SSE lag p50 %v p99 %v (%d reconnects, %d unseen), notify lag p50 %v p99 %v, API %.2f cores, %d/%d stored, run %s", n,
			res.sseP50, res.sseP99, res.sse.reconnects, res.sse.unseen, res.lagP50, res.lagP99, res.apiCores, res.stored, res.published, res.status)
		rep.phases = append(rep.phases, res)
	}
	return nil
}
