// Package app wires barrage-api: configuration, Postgres (created and
// migrated at start), the first admin, the domain services, the HTTP router
// and the listener. A test boots the whole service with New on ":0" and
// talks to it over HTTP.
//
// It holds no rules of its own; it only connects the packages that do.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/barrage-dev/barrage/pkg/pprofserve"
	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/api/internal/agents"
	"github.com/barrage-dev/barrage/services/api/internal/audit"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
	"github.com/barrage-dev/barrage/services/api/internal/dispatch"
	"github.com/barrage-dev/barrage/services/api/internal/echoprofiles"
	"github.com/barrage-dev/barrage/services/api/internal/export"
	"github.com/barrage-dev/barrage/services/api/internal/httpapi"
	"github.com/barrage-dev/barrage/services/api/internal/imports"
	"github.com/barrage-dev/barrage/services/api/internal/ingest"
	"github.com/barrage-dev/barrage/services/api/internal/live"
	"github.com/barrage-dev/barrage/services/api/internal/members"
	"github.com/barrage-dev/barrage/services/api/internal/metrics"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
	"github.com/barrage-dev/barrage/services/api/internal/ratelimit"
	"github.com/barrage-dev/barrage/services/api/internal/remotewrite"
	"github.com/barrage-dev/barrage/services/api/internal/resultsync"
	"github.com/barrage-dev/barrage/services/api/internal/retention"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
	"github.com/barrage-dev/barrage/services/api/internal/schedule"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
	"github.com/barrage-dev/barrage/services/api/internal/searches"
	"github.com/barrage-dev/barrage/services/api/internal/sso"
	"github.com/barrage-dev/barrage/services/api/internal/store"
	"github.com/barrage-dev/barrage/services/api/internal/testdefs"
	"github.com/barrage-dev/barrage/services/api/internal/tokens"
	"github.com/barrage-dev/barrage/services/api/internal/tracing"
	"github.com/barrage-dev/barrage/web"
)

// App is a running barrage-api.
type App struct {
	cfg        Config
	log        *slog.Logger
	store      *store.Store
	bus        *bus
	dispatcher *dispatch.Dispatcher
	ingester   *ingest.Ingester
	// hub fans the run events of every replica (ingest, dispatch, stops)
	// out to live streams.
	hub *live.Hub
	// syncer runs result syncs in the background and on their schedule.
	syncer *resultsync.Syncer
	// scheduler starts the runs of tests whose cron schedule is due.
	scheduler *schedule.Scheduler
	// searches drives the capacity searches whose lease this process holds.
	searches *searches.Service
	// runDeny and syncDeny are the control plane's addresses, refused to
	// runs and to syncs (which may read this API's public results).
	runDeny, syncDeny *denylist
	// companions run beside the API with -all-in-one; nil otherwise.
	companions *companions
	listener   net.Listener
	server     *http.Server
	// metrics instruments the router; served at /metrics, or alone on
	// cfg.MetricsListen.
	metrics *metrics.Metrics
	// remoteWrite sends the running runs' figures to the projects'
	// Prometheus remote-write endpoints.
	remoteWrite *remotewrite.Exporter
	// tracing exports the spans of requests and dispatch when
	// cfg.OTelTraces; its tracers are no-ops otherwise.
	tracing *tracing.Tracing
}

// New connects to Postgres (creating the database if missing), applies the
// migrations, creates the first admin on an empty database (printing its
// credentials to out once), and binds the listener.
func New(ctx context.Context, cfg Config, log *slog.Logger, out io.Writer) (*App, error) {
	seal, err := newSealer(cfg)
	if err != nil {
		return nil, err
	}
	st, err := openStore(ctx, cfg, log, seal)
	if err != nil {
		return nil, err
	}
	logSealer(cfg, log, seal)
	if err := st.MigrateUp(ctx); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	if err := bootstrap(ctx, cfg, st, out); err != nil {
		_ = st.Close()
		return nil, err
	}
	b, err := openBus(ctx, cfg, log)
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	a, err := newApp(ctx, cfg, log, st, b)
	if err != nil {
		return nil, err
	}
	if a.dispatcher, err = dispatch.New(ctx, dispatch.Config{
		Store: st, Conn: b.nc, JS: b.js, Log: log, Wait: cfg.DispatchWait, Registry: st, MaxRunFor: cfg.MaxDuration, Sealer: seal, Live: a.hub,
		AgentAccount: b.agentAccount(), MaxAgentCapacity: cfg.AgentMaxCapacity, Metrics: a.metrics, Tracer: a.tracing.Tracer(),
	}); err != nil {
		return nil, errors.Join(err, a.closeBackends())
	}
	if a.ingester, err = ingest.New(ctx, ingest.Config{Store: st, JS: b.js, Conn: b.nc, Log: log, OnInterval: a.hub.Local, Redactor: cfg.Redactor(), Metrics: a.metrics}); err != nil {
		return nil, errors.Join(err, a.closeBackends())
	}
	if cfg.AllInOne {
		if a.companions, err = startCompanions(cfg, b.url, b.keys, log); err != nil {
			return nil, errors.Join(err, a.closeBackends())
		}
	}
	if a.listener, err = net.Listen("tcp", cfg.Listen); err != nil {
		return nil, errors.Join(fmt.Errorf("listen on %s: %w", cfg.Listen, err), a.closeBackends())
	}
	deny := splitList(cfg.TargetDeny)
	a.runDeny = newDenylist(ctx, log, cfg.TargetResolver, a.listener.Addr(), cfg.DatabaseURL, b.url, deny)
	targets := runs.TargetPolicy{Deny: a.runDeny.List, Resolver: cfg.TargetResolver}
	// A sync may read this API's own index.tsv (a project mirroring another's
	// public results), never its Postgres or NATS.
	a.syncDeny = newDenylist(ctx, log, cfg.TargetResolver, nil, cfg.DatabaseURL, b.url, deny)
	a.syncer = resultsync.NewSyncer(st, resultsync.Options{Log: log, RequestTimeout: cfg.SyncRequestTimeout, Redactor: cfg.Redactor(),
		Deny: a.syncDeny.List, Resolver: cfg.TargetResolver})
	a.scheduler = newScheduler(cfg, log, st, seal, targets)
	var provider *sso.Provider
	if cfg.OIDC().Enabled() {
		if provider, err = sso.New(ctx, cfg.OIDC()); err != nil {
			_ = a.listener.Close()
			return nil, errors.Join(err, a.closeBackends())
		}
	}
	handler, err := newHandler(cfg, log, st, b, a, seal, targets, provider)
	if err != nil {
		_ = a.listener.Close()
		return nil, errors.Join(err, a.closeBackends())
	}
	log.Info("barrage-api listening", slog.String("addr", a.listener.Addr().String()))
	if a.companions != nil {
		addr := displayAddr(a.listener.Addr())
		fmt.Fprintf(out, "\n  Barrage all-in-one is up.\n    dashboard:   http://%s/\n    API:         http://%s/api/v1\n    echo target: %s\n",
			addr, addr, a.companions.EchoURL())
		if ports := a.companions.echoPorts(); ports != "" {
			fmt.Fprintf(out, "    echo ports:  %s\n", ports)
		}
		fmt.Fprintf(out, "    agent:       %s (capacity %d)\n\n", a.companions.agent.ID(), cfg.AgentCapacity)
	}
	// Live streams and waiting requests outlive ReadTimeout and
	// WriteTimeout: they clear the read deadline and set write deadlines
	// of their own (live/stream.go, httpapi/edge.go).
	a.server = &http.Server{
		Handler: handler, ReadHeaderTimeout: cfg.ReadHeaderTimeout, ReadTimeout: cfg.ReadTimeout,
		WriteTimeout: cfg.WriteTimeout, IdleTimeout: cfg.IdleTimeout,
	}
	a.server.RegisterOnShutdown(a.hub.Close)
	return a, nil
}

// displayAddr is a listen address as a URL host: a wildcard becomes 127.0.0.1.
func displayAddr(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return addr.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
}

// closeBackends closes NATS (and the embedded server) and the store.
func (a *App) closeBackends() error {
	if a.companions != nil && a.server == nil {
		a.companions.echo.Close() // built but never run
	}
	a.bus.close()
	return errors.Join(a.tracing.Shutdown(context.Background()), a.store.Close())
}

// newApp is the App of New on its store and bus, with its tracing, live
// hub and metrics; it closes both when it fails.
func newApp(ctx context.Context, cfg Config, log *slog.Logger, st *store.Store, b *bus) (*App, error) {
	tr, err := tracing.New(ctx, cfg.OTelTraces, version.String())
	if err != nil {
		b.close()
		return nil, errors.Join(err, st.Close())
	}
	a := &App{cfg: cfg, log: log, store: st, bus: b, hub: live.New(live.Options{Conn: b.nc, Log: log}), tracing: tr}
	a.metrics = newMetrics(st, b, log)
	if _, err := a.hub.SubscribeNATS(b.nc); err != nil { // ends when the connection drains
		return nil, errors.Join(fmt.Errorf("subscribe to run events: %w", err), a.closeBackends())
	}
	return a, nil
}

// openStore connects to Postgres with the configured pool; seal seals the
// secrets of stored tests (nil for commands that do not read tests).
func openStore(ctx context.Context, cfg Config, log *slog.Logger, seal *sealer.Sealer) (*store.Store, error) {
	st, err := store.Open(ctx, cfg.DatabaseURL, store.Options{MaxOpenConns: cfg.DBMaxConns, Sealer: seal, Redactor: cfg.Redactor()}, log)
	if err != nil {
		return nil, err //nolint:wrapcheck // Open's message is the one line users need
	}
	return st, nil
}

// newHandler builds the services and the router over st.
func newHandler(cfg Config, log *slog.Logger, st *store.Store, b *bus, a *App, seal *sealer.Sealer,
	targets runs.TargetPolicy, provider *sso.Provider,
) (http.Handler, error) {
	hub, syncer := a.hub, a.syncer
	limits := cfg.Limits()
	projectSvc := projects.NewService(st, limits)
	testSvc := testdefs.NewService(st, projectSvc, limits)
	runSvc := runs.NewService(st, projectSvc, testSvc, limits, seal, targets, cfg.Redactor())
	echoSvc := echoprofiles.NewService(echoprofiles.Options{Store: st, Projects: projectSvc, Registry: echoprofiles.NewKV(b.js), Log: log})
	runSvc.SetEchoLookup(echoSvc)
	runSvc.SetNotifier(hub)
	measures := runs.NewMeasures(runSvc, st)
	remoteWriteSvc := a.newRemoteWrite(cfg, st, projectSvc, log)
	a.searches = searches.NewService(searches.Options{
		Store: st, Projects: projectSvc, Runs: runSvc, Intervals: measures, Log: log, Lease: cfg.SearchLease,
	})
	var limiter, loginLimiter *ratelimit.Limiter
	if cfg.RateLimit > 0 {
		limiter = ratelimit.New(ratelimit.Options{Rate: cfg.RateLimit, Burst: cfg.RateBurst})
	}
	if cfg.LoginRate > 0 {
		loginLimiter = ratelimit.New(ratelimit.Options{Rate: cfg.LoginRate, Burst: cfg.LoginBurst})
	}
	proxies, err := cfg.Proxies()
	if err != nil {
		return nil, err
	}
	streams := live.NewSlots(live.Limits{PerCaller: cfg.StreamsPerCaller, PerRun: cfg.StreamsPerRun})
	a.metrics.WatchStreams(streams.Open)
	h, err := httpapi.NewRouter(httpapi.Options{
		Log: log,
		Services: httpapi.Services{
			Auth:     auth.NewAuthenticator(st, cfg.AuthOptions()),
			Projects: projectSvc,
			Tests:    testSvc,
			Runs:     runSvc,
			Tokens:   tokens.NewService(st, projectSvc),
			Agents:   agents.NewService(st),
			Measures: measures,
			Searches: a.searches,
			Live:     hub,
			Imports:  imports.NewService(projectSvc, st, cfg.Redactor()),
			Sync:     resultsync.NewService(projectSvc, st, syncer),
			Export:   export.NewService(st),
			Audit:    audit.NewService(st, projectSvc),
			Members:  members.NewService(st, projectSvc),

			EchoProfiles: echoSvc,
			RemoteWrite:  remoteWriteSvc,
		},
		BaseURL: cfg.BaseURL,
		Metrics: a.metrics,
		Tracer:  a.tracing,
		Limiter: limiter,

		TrustedProxies: proxies, LoginLimiter: loginLimiter,
		Streams:            streams,
		StreamWriteTimeout: cfg.StreamWriteTimeout, WriteTimeout: cfg.WriteTimeout,
		MetricsToken: cfg.MetricsToken, NoMetricsRoute: cfg.MetricsListen != "", FortioURLToken: cfg.FortioURLToken,
		Ready: func(ctx context.Context) error {
			if err := st.Ping(ctx); err != nil {
				return err
			}
			return b.ready(ctx)
		},
		MaxBodyBytes: cfg.MaxBodyBytes,
		SecureCookie: cfg.SecureCookie,
		SessionTTL:   cfg.SessionTTL,
		Dashboard:    web.Dist(),
		SSO:          provider,
		Redactor:     cfg.Redactor(),
		ReadOnly:     cfg.ReadOnly,
	})
	if err != nil {
		return nil, fmt.Errorf("build router: %w", err)
	}
	if !web.Built() {
		log.Warn("this binary holds no dashboard: `make build` builds web/ before the Go binaries")
	}
	return h, nil
}

// Addr returns the address the API listens on.
func (a *App) Addr() string { return a.listener.Addr().String() }

// NATSURL returns the URL of the NATS server the API uses: the embedded
// one's when NATS_URL is unset. Agents started beside the API connect there.
func (a *App) NATSURL() string { return a.bus.url }

// Handler returns the HTTP handler, for tests and benchmarks that call it
// without a socket.
func (a *App) Handler() http.Handler { return a.server.Handler }

// Run serves and dispatches until ctx is done, then lets in-flight
// requests finish for up to the shutdown timeout, stops the background
// workers and closes NATS and the store.
func (a *App) Run(ctx context.Context) error {
	if a.cfg.DebugAddr != "" {
		stopDebug, err := pprofserve.Start(ctx, a.cfg.DebugAddr, a.log)
		if err != nil {
			return errors.Join(fmt.Errorf("-debug-addr: %w", err), a.Close())
		}
		defer stopDebug()
	}
	if a.cfg.MetricsListen != "" {
		stopMetrics, err := serveMetrics(ctx, a.cfg, a.metrics, a.log)
		if err != nil {
			return errors.Join(err, a.Close())
		}
		defer stopMetrics()
	}
	wctx, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	var workers sync.WaitGroup
	workers.Go(func() {
		if err := a.dispatcher.Run(wctx); err != nil {
			a.log.Error("dispatcher stopped", slog.Any("error", err))
		}
	})
	workers.Go(func() {
		if err := a.ingester.Run(wctx); err != nil {
			a.log.Error("ingester stopped", slog.Any("error", err))
		}
	})
	workers.Go(func() { runs.NewAborter(a.store, a.hub, a.log).Loop(wctx, time.Second) })
	workers.Go(func() { a.remoteWrite.Loop(wctx, time.Second) })
	workers.Go(func() { a.runDeny.Run(wctx, a.cfg.TargetDenyRefresh) })
	workers.Go(func() { a.syncDeny.Run(wctx, a.cfg.TargetDenyRefresh) })
	if a.cfg.SyncTick > 0 && !a.cfg.ReadOnly {
		workers.Go(func() { a.syncer.Loop(wctx, a.cfg.SyncTick) })
	}
	if a.cfg.ScheduleTick > 0 && !a.cfg.ReadOnly {
		workers.Go(func() { a.scheduler.Loop(wctx) })
	}
	a.startRetention(wctx, &workers)
	if err := a.searches.FailStale(ctx); err != nil {
		a.log.Error("end stale searches", slog.Any("error", err))
	}
	if !a.cfg.ReadOnly {
		workers.Go(func() { a.searches.Loop(wctx) })
	}
	if a.companions != nil {
		workers.Go(func() {
			if err := a.companions.run(wctx); err != nil {
				a.log.Error("all-in-one agent or echo stopped", slog.Any("error", err))
			}
		})
	}
	defer func() {
		a.searches.Close()
		stopWorkers()
		workers.Wait()
	}()
	errc := make(chan error, 1)
	go func() { errc <- a.server.Serve(a.listener) }()
	select {
	case err := <-errc:
		a.searches.Close()
		stopWorkers()
		workers.Wait()
		return errors.Join(fmt.Errorf("serve: %w", err), a.closeBackends())
	case <-ctx.Done():
	}
	a.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.ShutdownTimeout)
	defer cancel()
	err := a.server.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	a.searches.Close()
	stopWorkers()
	workers.Wait()
	a.syncer.Close()
	return errors.Join(err, a.closeBackends())
}

// Close releases the listener, NATS and the store of an App that was not Run.
func (a *App) Close() error {
	a.searches.Close()
	a.hub.Close()
	a.syncer.Close()
	return errors.Join(a.listener.Close(), a.closeBackends())
}

// startRetention starts the projects' retention job in workers, unless it
// is off or the server is read-only. It leads with the scheduler's lock;
// without a scheduler loop it gives the lock up when ctx ends.
func (a *App) startRetention(ctx context.Context, workers *sync.WaitGroup) {
	if a.cfg.RetentionInterval <= 0 || a.cfg.ReadOnly {
		return
	}
	job := retention.New(retention.Options{Store: a.store, Leader: a.scheduler, Log: a.log, Interval: a.cfg.RetentionInterval})
	workers.Go(func() {
		job.Loop(ctx)
		if a.cfg.ScheduleTick <= 0 { // no scheduler loop gives the lock up
			if err := a.scheduler.Close(); err != nil {
				a.log.Warn("retention: release leader lock", slog.Any("err", err))
			}
		}
	})
}
