package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/barrage-dev/barrage/pkg/envconf"
	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/pprofserve"
	"github.com/barrage-dev/barrage/pkg/svclog"
	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/agent/internal/agentmetrics"
	"github.com/barrage-dev/barrage/services/agent/internal/procs"
	"github.com/barrage-dev/barrage/services/agent/internal/worker"
)

// serveConfig is `barrage-agent serve`'s configuration: each field is a flag
// and an environment variable of the same meaning (docs/architecture.md §8); flags win.
type serveConfig struct {
	NATSURL  string `env:"NATS_URL" envDefault:"nats://127.0.0.1:4222"`
	Name     string `env:"BARRAGE_AGENT_NAME"`
	Labels   string `env:"BARRAGE_AGENT_LABELS"`
	Capacity int    `env:"BARRAGE_AGENT_CAPACITY" envDefault:"4"`
	Creds    string `env:"BARRAGE_AGENT_CREDS"`
	CredsDir string `env:"BARRAGE_AGENT_CREDS_DIR"`
	// DebugAddr serves net/http/pprof (goroutine counts, heap profiles)
	// when set: for soak runs and leak hunts, never on a public address.
	DebugAddr string `env:"BARRAGE_AGENT_DEBUG_ADDR"`
	// DebugAddrInsecure lets DebugAddr be other than loopback.
	DebugAddrInsecure bool `env:"BARRAGE_AGENT_DEBUG_ADDR_INSECURE"`
	// MetricsAddr serves the agent's own Prometheus metrics at /metrics
	// when set (docs/observability.md).
	MetricsAddr string `env:"BARRAGE_AGENT_METRICS_ADDR"`
}

// serveSettings is what parseServe reads: the worker's config and the
// process's own settings.
type serveSettings struct {
	worker      worker.Config
	debugAddr   string
	metricsAddr string
	// claim is the lock on the credentials taken from -creds-dir (nil
	// otherwise): runServe holds it until the agent exits.
	claim io.Closer
}

// runServe is `barrage-agent serve`: the worker runs until ctx is done
// (SIGTERM, Ctrl-C), then shuts down gracefully.
func runServe(ctx context.Context, args, environ []string, stdout, stderr io.Writer) int {
	set, err := parseServe(args, environ, stdout)
	wcfg := set.worker
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent serve: %v\n", err)
		_, _ = fmt.Fprintln(stderr, "Run 'barrage-agent serve -h' for the flags.")
		return ExitUsage
	}
	if set.claim != nil {
		// Held, and so reachable, until the agent exits: its flock is the claim.
		defer func() { _ = set.claim.Close() }()
	}
	if wcfg.Logger, err = svclog.New(stderr, slog.LevelInfo, environ); err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent serve: %v\n", err)
		return ExitUsage
	}
	wcfg.Version = version.String()
	if set.debugAddr != "" {
		stopDebug, err := pprofserve.Start(ctx, set.debugAddr, wcfg.Logger)
		if err != nil {
			_, _ = fmt.Fprintf(stderr, "barrage-agent serve: -debug-addr: %v\n", err)
			return ExitUsage
		}
		defer stopDebug()
	}
	wcfg.Metrics = agentmetrics.New(prometheus.NewRegistry())
	if set.metricsAddr != "" {
		stopMetrics, _, err := wcfg.Metrics.Serve(ctx, set.metricsAddr, wcfg.Logger)
		if err != nil {
			_, _ = fmt.Fprintf(stderr, "barrage-agent serve: -metrics-addr: %v\n", err)
			return ExitUsage
		}
		defer stopMetrics()
	}
	w, err := worker.New(wcfg)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "barrage-agent serve: %v\n", err)
		return ExitUsage
	}
	defer procs.Start(ctx, 1, wcfg.Logger)()
	if err := w.Run(ctx); err != nil {
		wcfg.Logger.Error("agent failed", slog.Any("error", err))
		return ExitFailure
	}
	return ExitOK
}

// parseServe reads the environment, then the flags, into a worker config.
// -h prints the usage to help and returns flag.ErrHelp.
func parseServe(args, environ []string, help io.Writer) (serveSettings, error) {
	var c serveConfig
	if err := envconf.Parse(&c, environ); err != nil {
		return serveSettings{}, err
	}
	fs := flag.NewFlagSet("barrage-agent serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by the caller
	fs.StringVar(&c.NATSURL, "nats-url", c.NATSURL, "NATS server URL (NATS_URL)")
	fs.StringVar(&c.Name, "name", c.Name, "agent name shown in barrage-api; default the hostname (BARRAGE_AGENT_NAME)")
	fs.StringVar(&c.Labels, "labels", c.Labels, `agent labels "k=v,k2=v2" that runs select agents by (BARRAGE_AGENT_LABELS)`)
	fs.IntVar(&c.Capacity, "capacity", c.Capacity, "shards this agent runs at once (BARRAGE_AGENT_CAPACITY)")
	fs.StringVar(&c.Creds, "creds", c.Creds, "this agent's own NATS credentials, from `barrage-api agent-credentials create` (BARRAGE_AGENT_CREDS)")
	fs.StringVar(&c.CredsDir, "creds-dir", c.CredsDir, "take the first free credentials file of this directory, from `barrage-api nats-auth bootstrap` (BARRAGE_AGENT_CREDS_DIR)")
	fs.StringVar(&c.DebugAddr, "debug-addr", c.DebugAddr, "serve net/http/pprof on this address, e.g. 127.0.0.1:6060; loopback only unless -debug-addr-force; empty = off (BARRAGE_AGENT_DEBUG_ADDR)")
	fs.BoolVar(&c.DebugAddrInsecure, "debug-addr-force", c.DebugAddrInsecure, "let -debug-addr be a non-loopback address: pprof has no authentication (BARRAGE_AGENT_DEBUG_ADDR_INSECURE)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", c.MetricsAddr, "serve the agent's Prometheus metrics at /metrics on this address, e.g. :9102; empty = off (BARRAGE_AGENT_METRICS_ADDR)")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(help)
		_, _ = fmt.Fprintln(help, "Usage: barrage-agent serve [flags]\n\nFlags:")
		fs.PrintDefaults()
		return serveSettings{}, err
	}
	if err != nil {
		return serveSettings{}, err
	}
	if fs.NArg() > 0 {
		return serveSettings{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.NATSURL == "" {
		return serveSettings{}, errors.New("-nats-url: must not be empty")
	}
	if c.Capacity < 1 {
		return serveSettings{}, fmt.Errorf("-capacity %d: must be at least 1", c.Capacity)
	}
	if c.DebugAddr != "" && !c.DebugAddrInsecure {
		if err := pprofserve.CheckLoopback(c.DebugAddr); err != nil {
			return serveSettings{}, fmt.Errorf("-debug-addr: %w; -debug-addr-force (BARRAGE_AGENT_DEBUG_ADDR_INSECURE) allows it", err)
		}
	}
	labels, err := parseAgentLabels(c.Labels)
	if err != nil {
		return serveSettings{}, err
	}
	if c.Name == "" {
		if c.Name, err = os.Hostname(); err != nil || c.Name == "" {
			return serveSettings{}, errors.New("-name: the hostname is unknown, give a name")
		}
	}
	var creds []byte
	var claim io.Closer
	switch {
	case c.Creds != "" && c.CredsDir != "":
		return serveSettings{}, errors.New("-creds and -creds-dir: give one")
	case c.Creds != "":
		if creds, err = os.ReadFile(c.Creds); err != nil {
			return serveSettings{}, fmt.Errorf("-creds: %w", err)
		}
	case c.CredsDir != "":
		held, err := claimCredentials(c.CredsDir)
		if err != nil {
			return serveSettings{}, err
		}
		c.Creds, creds, claim = held.path, held.creds, held.lock
		// The healthcheck, another process, reads which file was taken.
		if err := os.WriteFile(claimRecord(), []byte(c.Creds), 0o600); err != nil {
			return serveSettings{}, fmt.Errorf("-creds-dir: record the claim: %w", err)
		}
	}
	if creds != nil {
		if _, _, err := natsauth.ParseCredentials(creds); err != nil {
			return serveSettings{}, fmt.Errorf("-creds %s: %w", c.Creds, err)
		}
	}
	wcfg := worker.Config{NATSURL: c.NATSURL, Name: c.Name, Labels: labels, Capacity: c.Capacity, Credentials: creds}
	return serveSettings{worker: wcfg, debugAddr: c.DebugAddr, metricsAddr: c.MetricsAddr, claim: claim}, nil
}

// parseAgentLabels reads "k=v,k2=v2"; empty means no labels.
func parseAgentLabels(v string) (map[string]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	labels := map[string]string{}
	for item := range strings.SplitSeq(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("-labels %q: want k=v,k2=v2", v)
		}
		labels[k] = strings.TrimSpace(val)
	}
	return labels, nil
}

// claimRecord is where serve -creds-dir writes the path of the credentials
// it took, for the healthcheck.
func claimRecord() string { return filepath.Join(os.TempDir(), "barrage-agent.creds-claim") }
