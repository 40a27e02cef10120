package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
)

// bus is the API's NATS connection, and the embedded server when NATS_URL
// is unset.
type bus struct {
	srv *natsembed.Server
	url string
	// keys sign the NATS users in operator mode; nil when the API connects
	// to an external server without them.
	keys *natsauth.Keys
	// setup is how wire.Setup makes the streams and buckets.
	setup wire.SetupOptions
	nc    *nats.Conn
	js    jetstream.JetStream
	// reconnected wakes keepSetUp; stop ends it.
	reconnected chan struct{}
	stop        context.CancelFunc
}

// openBus connects to cfg.NATSURL, or starts an embedded server first, and
// creates the contract's streams and buckets.
func openBus(ctx context.Context, cfg Config, log *slog.Logger) (*bus, error) {
	b := &bus{reconnected: make(chan struct{}, 1), setup: wire.SetupOptions{Replicas: cfg.NATSReplicas}}
	keys, err := natsKeys(cfg, log)
	if err != nil {
		return nil, err
	}
	b.keys = keys
	addr := cfg.NATSURL
	if addr == "" {
		srv, err := startEmbedded(cfg, keys, log)
		if err != nil {
			return nil, err
		}
		b.srv, addr = srv, srv.URL()
	}
	b.url = addr
	opts := []nats.Option{
		nats.Name("barrage-api"),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			log.Warn("nats disconnected", slog.Any("error", err))
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			log.Info("nats reconnected", slog.String("url", c.ConnectedUrlRedacted()))
			select {
			case b.reconnected <- struct{}{}:
			default:
			}
		}),
	}
	if keys != nil {
		creds, err := keys.APIUser()
		if err != nil {
			b.close()
			return nil, err
		}
		opts = append(opts, nats.UserJWTAndSeed(creds.JWT, string(creds.Seed)))
	}
	nc, err := nats.Connect(addr, opts...)
	if err != nil {
		b.close()
		return nil, fmt.Errorf("connect to NATS at %s: %w", redactURL(addr), err)
	}
	b.nc = nc
	if b.js, err = jetstream.New(nc); err != nil {
		b.close()
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	if err := b.setUpAtStart(ctx, log); err != nil {
		b.close()
		return nil, fmt.Errorf("set up NATS streams (does the server have JetStream enabled?): %w", err)
	}
	kctx, stop := context.WithCancel(context.Background())
	b.stop = stop
	go b.keepSetUp(kctx, log)
	return b, nil
}

// setupBudget bounds how long the API tries to set up the streams and
// buckets at start; setupAttempt bounds one try.
const (
	setupBudget  = 60 * time.Second
	setupAttempt = 5 * time.Second
)

// setUpAtStart runs wire.SetupWith until it succeeds, each try bounded to
// setupAttempt, for up to setupBudget. A JetStream cluster that has just
// formed may lose a request: its routes are still being replaced (a node
// dials the others before they listen and retries a second later, and the
// duplicate routes are closed) or its meta leader is still being elected.
// No answer ever comes, and one try bounded by the whole budget made the
// API give up and exit (the fault suite's cluster stack, 1 start in 6).
// A new try goes out over the settled routes.
func (b *bus) setUpAtStart(ctx context.Context, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, setupBudget)
	defer cancel()
	for {
		actx, acancel := context.WithTimeout(ctx, setupAttempt)
		err := wire.SetupWith(actx, b.js, b.setup)
		acancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		log.Warn("nats: set up streams and buckets; will retry", slog.Any("error", err))
		select {
		case <-ctx.Done():
			return err
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// keepSetUp runs wire.Setup again after every reconnect until it succeeds.
// A restarted nats-server has lost its memory-stored buckets (the agents'
// and echoes' heartbeats); agents with their own credentials may not
// create them, so without this, dispatch would stop until the API
// restarted (docs/reliability.md).
func (b *bus) keepSetUp(ctx context.Context, log *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.reconnected:
		}
		for {
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := wire.SetupWith(sctx, b.js, b.setup)
			cancel()
			if err == nil {
				log.Info("nats: streams and buckets checked after reconnect")
				break
			}
			log.Warn("nats: set up streams and buckets after reconnect; will retry", slog.Any("error", err))
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}
}

// startEmbedded starts the in-process server on cfg.NATSListen. When that
// port is taken (a NATS already runs there, say), it falls back to a free
// port and says so: the API's own agents find it either way.
func startEmbedded(cfg Config, keys *natsauth.Keys, log *slog.Logger) (*natsembed.Server, error) {
	host, portText, err := net.SplitHostPort(cfg.NATSListen)
	if err != nil {
		return nil, fmt.Errorf("-nats-listen %q: %w", cfg.NATSListen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("-nats-listen %q: bad port", cfg.NATSListen)
	}
	if port == 0 {
		port = -1 // nats-server reads 0 as its default port, -1 as any free one
	}
	if port > 0 && portTaken(host, port) {
		log.Warn("embedded NATS: port taken; using a free one", slog.String("wanted", cfg.NATSListen))
		port = -1
	}
	opts := natsembed.Options{DataDir: cfg.NATSDataDir, Host: host, Port: port}
	if keys != nil {
		trust, err := keys.Trust()
		if err != nil {
			return nil, fmt.Errorf("embedded NATS: %w", err)
		}
		opts.Trust = &trust
	}
	srv, err := natsembed.Start(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	log.Info("embedded NATS with JetStream started", slog.String("url", srv.URL()), slog.String("data_dir", cfg.NATSDataDir))
	return srv, nil
}

// natsKeys loads cfg.NATSKeys. Without a file: the all-in-one embedded
// server gets keys of this process only (its own agent is the only one);
// an embedded server for agents of other processes, and an external
// server, run without operator mode (nil), with a warning, since every
// client may then read every agent's assignments.
func natsKeys(cfg Config, log *slog.Logger) (*natsauth.Keys, error) {
	if cfg.NATSKeys != "" {
		k, err := natsauth.Load(cfg.NATSKeys)
		if err != nil {
			return nil, fmt.Errorf("-nats-keys: %w", err)
		}
		return &k, nil
	}
	if cfg.NATSURL == "" && cfg.AllInOne {
		k, err := natsauth.Generate()
		if err != nil {
			return nil, err //nolint:wrapcheck // natsauth's errors say what failed
		}
		return &k, nil
	}
	log.Warn("no BARRAGE_NATS_KEYS: NATS without operator mode, so agents share one identity and any client " +
		"may read every agent's assignments; create keys with `barrage-api nats-auth init FILE`")
	return nil, nil
}

// portTaken reports whether host:port cannot be bound.
func portTaken(host string, port int) bool {
	return addrTaken("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
}

// addrTaken reports whether another socket holds addr on network ("tcp" or
// "udp"): a probe listener is refused with EADDRINUSE.
func addrTaken(network, addr string) bool {
	var err error
	if network == "udp" {
		var pc net.PacketConn
		if pc, err = net.ListenPacket(network, addr); err == nil {
			_ = pc.Close()
		}
	} else {
		var ln net.Listener
		if ln, err = net.Listen(network, addr); err == nil {
			_ = ln.Close()
		}
	}
	return errors.Is(err, syscall.EADDRINUSE)
}

// redactURL drops credentials from a NATS URL (or a list of them) for messages.
func redactURL(raw string) string {
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		if u, err := url.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			u.User = nil
			parts[i] = u.String()
		}
	}
	return strings.Join(parts, ",")
}

// readyTimeout bounds ready's round trip when its context has no deadline.
const readyTimeout = 2 * time.Second

// ready reports whether the connection is up and the server answers
// (/readyz). A partition that drops packets leaves the connection CONNECTED
// until the client's pings go unanswered, minutes later; a round trip to
// the server within ctx shows it at once (docs/reliability.md §7,
// TestAPISilentlyPartitionedFromNATSThenPostgres).
func (b *bus) ready(ctx context.Context) error {
	if st := b.nc.Status(); st != nats.CONNECTED {
		return fmt.Errorf("nats is %s", st)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, readyTimeout)
		defer cancel()
	}
	if err := b.nc.FlushWithContext(ctx); err != nil {
		return fmt.Errorf("nats does not answer: %w", err)
	}
	return nil
}

// close drains the connection and stops the embedded server.
func (b *bus) close() {
	if b.stop != nil {
		b.stop()
	}
	if b.nc != nil {
		_ = b.nc.Drain()
		for b.nc.IsDraining() {
			time.Sleep(10 * time.Millisecond)
		}
		b.nc.Close()
	}
	if b.srv != nil {
		b.srv.Shutdown()
	}
}

// agentAccount is the public key of the account that signs agent
// credentials in operator mode, "" without keys (dispatch.Config).
func (b *bus) agentAccount() string {
	if b.keys == nil {
		return ""
	}
	return b.keys.AccountPublic()
}
