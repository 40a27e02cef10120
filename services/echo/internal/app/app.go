// Package app wires barrage-echo: configuration, listeners, and their lifecycle.
// A test boots the whole server with New on ":0" addresses and talks to it.
// Other processes (`barrage-api -all-in-one`, the API's tests) embed it
// through the public package services/echo/echo.
package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/quic-go/quic-go/http3"

	fault "github.com/barrage-dev/barrage/pkg/echofault"
	"github.com/barrage-dev/barrage/pkg/version"
	"github.com/barrage-dev/barrage/services/echo/internal/connsplit"
	"github.com/barrage-dev/barrage/services/echo/internal/fanout"
	"github.com/barrage-dev/barrage/services/echo/internal/httpecho"
	"github.com/barrage-dev/barrage/services/echo/internal/metrics"
	"github.com/barrage-dev/barrage/services/echo/internal/netecho"
	"github.com/barrage-dev/barrage/services/echo/internal/ping"
	"github.com/barrage-dev/barrage/services/echo/internal/redirect"
	"github.com/barrage-dev/barrage/services/echo/internal/saturation"
	"github.com/barrage-dev/barrage/services/echo/internal/tcpproxy"
)

// App is a running barrage-echo: its listeners are bound by New and served by Run.
type App struct {
	cfg Config
	log *slog.Logger

	httpLn  net.Listener
	httpSrv *http.Server
	// fastSrv serves HTTP/1.x on the plain port (split from h2c by connsplit);
	// nil with TLS, where net/http serves both protocols.
	fastSrv *fasthttp.Server
	split   *connsplit.Split
	grpcLn  net.Listener
	grpcSrv *grpc.Server
	tcp     *netecho.TCP
	tcpLn   net.Listener
	udp     *netecho.UDP
	udpPC   net.PacketConn
	// proxies are the -tcp-proxy routes, proxyLns their listeners.
	proxies  []*tcpproxy.Proxy
	proxyLns []net.Listener
	// h3 serves HTTP/3 on h3PC.
	h3   *http3.Server
	h3PC net.PacketConn
	// multi are the -multi fan-out proxies on multiLns.
	multi    []*http.Server
	multiLns []net.Listener
	// redirectSrv is the HTTP to HTTPS redirector on redirectLn.
	redirectSrv *http.Server
	redirectLn  net.Listener
	// handlers are the HTTP echo handlers, whose defaults a managed echo sets.
	handlers []*httpecho.Handler
}

// New binds every enabled listener and builds the servers; it does not serve yet.
func New(cfg Config, log *slog.Logger) (_ *App, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, log: log}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	m := metrics.New()
	var tlsCfg *tls.Config
	if cfg.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("load TLS key pair: %w", err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		if err := requireClientCerts(tlsCfg, cfg.ClientCAFile); err != nil {
			return nil, err
		}
	}
	if err := a.setupHTTP(m, tlsCfg); err != nil {
		return nil, err
	}
	if err := a.setupH3(m, tlsCfg); err != nil {
		return nil, err
	}
	if err := a.setupGRPC(m, tlsCfg); err != nil {
		return nil, err
	}
	if cfg.TCPAddr != "" {
		if a.tcpLn, err = a.listen("tcp", cfg.TCPAddr); err != nil {
			return nil, err
		}
		a.tcp = netecho.NewTCP(a.tcpLn, m, log, a.delayer(m, "tcp"))
	}
	for _, r := range cfg.TCPProxies {
		route, _ := tcpproxy.ParseRoute(r) // Validate checked it
		ln, err := a.listen("tcp-proxy to "+route.Dest, route.Listen)
		if err != nil {
			return nil, err
		}
		a.proxyLns = append(a.proxyLns, ln)
		a.proxies = append(a.proxies, tcpproxy.New(ln, route.Dest, log))
	}
	for _, m := range cfg.Multi {
		route, _ := fanout.ParseRoute(m) // Validate checked it
		ln, err := a.listen("multi", route.Listen)
		if err != nil {
			return nil, err
		}
		a.multiLns = append(a.multiLns, ln)
		a.multi = append(a.multi, &http.Server{
			Handler: fanout.Handler(route.Targets, fanout.Options{
				Serial: cfg.MultiSerial, MirrorOrigin: cfg.MultiMirrorOrigin, MaxBody: maxRequestBody, Logger: log,
			}),
			ReadHeaderTimeout: 10 * time.Second,
		})
	}
	if cfg.RedirectAddr != "" {
		if a.redirectLn, err = a.listen("https-redirect", cfg.RedirectAddr); err != nil {
			return nil, err
		}
		a.redirectSrv = &http.Server{Handler: redirect.Handler(), ReadHeaderTimeout: 10 * time.Second}
	}
	if cfg.UDPAddr != "" {
		if a.udpPC, err = net.ListenPacket("udp", cfg.UDPAddr); err != nil {
			return nil, fmt.Errorf("listen udp %s: %w", cfg.UDPAddr, err)
		}
		log.Info("listening", slog.String("protocol", "udp"), slog.String("addr", a.udpPC.LocalAddr().String()))
		a.udp = netecho.NewUDP(a.udpPC, m, log, a.delayer(m, "udp"))
	}
	return a, nil
}

// listen binds addr: a TCP host:port, or a Unix socket path after "unix:".
func (a *App) listen(protocol, addr string) (net.Listener, error) {
	network := "tcp"
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		network, addr = "unix", path
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s %s: %w", protocol, addr, err)
	}
	a.log.Info("listening", slog.String("protocol", protocol), slog.String("addr", ln.Addr().String()))
	return ln, nil
}

// echoHandler builds the HTTP echo handler of the configuration.
func (a *App) echoHandler(m *metrics.Metrics) (*httpecho.Handler, error) {
	h, err := httpecho.New(httpecho.Options{
		Limits:        fault.Limits{MaxDelay: a.cfg.MaxDelay, MaxPayload: int(a.cfg.MaxPayload)},
		DefaultParams: a.cfg.DefaultParams,
		DebugEnv:      a.cfg.DebugEnv,
		TimeHeader:    a.cfg.ServerTimeHeader,
		NoDebug:       !a.cfg.Debug,
		Version:       version.String(),
		Metrics:       m,
		Logger:        a.log,
	})
	if err != nil {
		return nil, fmt.Errorf("http echo: %w", err)
	}
	a.handlers = append(a.handlers, h)
	return h, nil
}

func (a *App) setupHTTP(m *metrics.Metrics, tlsCfg *tls.Config) error {
	if a.cfg.HTTPAddr == "" {
		return nil
	}
	h, err := a.echoHandler(m)
	if err != nil {
		return err
	}
	protocols := new(http.Protocols)
	if tlsCfg != nil {
		protocols.SetHTTP1(true)
		protocols.SetHTTP2(true)
	} else {
		protocols.SetUnencryptedHTTP2(true) // h2c with prior knowledge; HTTP/1.x goes to fasthttp
		a.fastSrv = &fasthttp.Server{
			Handler:               h.FastHandler(),
			Name:                  "barrage-echo",
			NoDefaultServerHeader: true,
			NoDefaultContentType:  true,
			IdleTimeout:           2 * time.Minute,
			ReadTimeout:           2 * time.Minute,
			MaxRequestBodySize:    maxRequestBody,
			CloseOnShutdown:       true,
			Logger:                fastLogger{a.log},
		}
	}
	a.httpSrv = &http.Server{
		Handler:           h,
		Protocols:         protocols,
		TLSConfig:         tlsCfg,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelDebug),
	}
	a.httpLn, err = a.listen("http", a.cfg.HTTPAddr)
	return err
}

// setupH3 binds the HTTP/3 listener, which serves the same handler as the
// h2 one (HTTP/3 is never served without TLS).
func (a *App) setupH3(m *metrics.Metrics, tlsCfg *tls.Config) error {
	if a.cfg.H3Addr == "" {
		return nil
	}
	h, err := a.echoHandler(m)
	if err != nil {
		return err
	}
	pc, err := net.ListenPacket("udp", a.cfg.H3Addr)
	if err != nil {
		return fmt.Errorf("listen h3 %s: %w", a.cfg.H3Addr, err)
	}
	a.h3PC = pc
	a.h3 = &http3.Server{Handler: h, TLSConfig: http3.ConfigureTLSConfig(tlsCfg.Clone())}
	a.log.Info("listening", slog.String("protocol", "h3"), slog.String("addr", pc.LocalAddr().String()))
	return nil
}

// H3Addr returns the bound HTTP/3 address, "" when disabled.
func (a *App) H3Addr() string {
	if a.h3PC == nil {
		return ""
	}
	return a.h3PC.LocalAddr().String()
}

// serveH3 serves HTTP/3 until ctx is done.
func (a *App) serveH3(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- a.h3.Serve(a.h3PC) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve h3: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.ShutdownTimeout)
	defer cancel()
	if err := a.h3.Shutdown(sctx); err != nil {
		_ = a.h3.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		a.log.Debug("h3 server stopped", slog.Any("error", err))
	}
	return nil
}

func (a *App) setupGRPC(m *metrics.Metrics, tlsCfg *tls.Config) error {
	if a.cfg.GRPCAddr == "" {
		return nil
	}
	opts := []grpc.ServerOption{grpc.StatsHandler(ping.NewConnStats(m))}
	if tlsCfg != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tlsCfg)))
	}
	if a.cfg.GRPCMaxStreams > 0 {
		opts = append(opts, grpc.MaxConcurrentStreams(a.cfg.GRPCMaxStreams))
	}
	if d := a.delayer(m, "grpc"); d != nil {
		opts = append(opts, grpc.ChainUnaryInterceptor(ping.Saturate(d)))
	}
	a.grpcSrv = grpc.NewServer(opts...)
	ping.Register(a.grpcSrv, ping.NewServer(a.cfg.MaxDelay, m))
	var err error
	a.grpcLn, err = a.listen("grpc", a.cfg.GRPCAddr)
	return err
}

// delayer returns the saturation of -saturate for one listener of
// protocol (each listener averages its own requests in flight), nil
// without -saturate.
func (a *App) delayer(m *metrics.Metrics, protocol string) *saturation.Delayer {
	if a.cfg.Saturate == "" {
		return nil
	}
	s, _ := fault.ParseSaturate(a.cfg.Saturate, a.cfg.MaxDelay) // Validate checked it
	return saturation.NewDelayer(s, a.cfg.MaxDelay, func(d time.Duration) { m.InjectedDelay(protocol, d.Seconds()) })
}

// HTTPAddr returns the bound HTTP address, "" when disabled.
func (a *App) HTTPAddr() string { return addrOf(a.httpLn) }

// GRPCAddr returns the bound gRPC address, "" when disabled.
func (a *App) GRPCAddr() string { return addrOf(a.grpcLn) }

// TCPAddr returns the bound TCP echo address, "" when disabled.
func (a *App) TCPAddr() string { return addrOf(a.tcpLn) }

// TCPProxyAddrs returns the bound addresses of the -tcp-proxy routes, in order.
func (a *App) TCPProxyAddrs() []string {
	out := make([]string, len(a.proxyLns))
	for i, ln := range a.proxyLns {
		out[i] = addrOf(ln)
	}
	return out
}

// MultiAddrs returns the bound addresses of the -multi proxies, in order.
func (a *App) MultiAddrs() []string {
	out := make([]string, len(a.multiLns))
	for i, ln := range a.multiLns {
		out[i] = addrOf(ln)
	}
	return out
}

// RedirectAddr returns the bound redirector address, "" when disabled.
func (a *App) RedirectAddr() string { return addrOf(a.redirectLn) }

// UDPAddr returns the bound UDP echo address, "" when disabled.
func (a *App) UDPAddr() string {
	if a.udpPC == nil {
		return ""
	}
	return a.udpPC.LocalAddr().String()
}

func addrOf(ln net.Listener) string {
	if ln == nil {
		return ""
	}
	return ln.Addr().String()
}

// Run serves until ctx is done, then shuts down gracefully: in-flight HTTP and gRPC
// requests get up to ShutdownTimeout to finish.
func (a *App) Run(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	if a.httpSrv != nil {
		g.Go(func() error { return a.serveHTTP(gctx) })
	}
	if a.grpcSrv != nil {
		g.Go(func() error { return a.serveGRPC(gctx) })
	}
	if a.tcp != nil {
		g.Go(func() error { return a.tcp.Serve(gctx) })
	}
	if a.udp != nil {
		g.Go(func() error { return a.udp.Serve(gctx) })
	}
	for _, p := range a.proxies {
		g.Go(func() error { return p.Serve(gctx) })
	}
	if a.redirectSrv != nil {
		g.Go(func() error { return a.servePlain(gctx, "redirect", a.redirectSrv, a.redirectLn) })
	}
	if a.h3 != nil {
		g.Go(func() error { return a.serveH3(gctx) })
	}
	for i, srv := range a.multi {
		g.Go(func() error { return a.servePlain(gctx, "multi", srv, a.multiLns[i]) })
	}
	if a.cfg.NATSURL != "" {
		g.Go(func() error { return a.runManaged(gctx) })
	}
	err := g.Wait()
	a.log.Info("stopped")
	return err
}

func (a *App) serveHTTP(ctx context.Context) error {
	errc := make(chan error, 2)
	switch {
	case a.httpSrv.TLSConfig != nil:
		go func() { errc <- a.httpSrv.ServeTLS(a.httpLn, "", "") }()
	default:
		a.split = connsplit.New(a.httpLn)
		go func() { errc <- a.httpSrv.Serve(a.split.HTTP2()) }()
		go func() { errc <- a.fastSrv.Serve(a.split.HTTP1()) }()
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	if a.split != nil {
		_ = a.split.Close() // no new connections on either side
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.ShutdownTimeout)
	defer cancel()
	var g errgroup.Group
	g.Go(func() error { return a.httpSrv.Shutdown(sctx) })
	if a.fastSrv != nil {
		g.Go(func() error { return a.fastSrv.ShutdownWithContext(sctx) })
	}
	if err := g.Wait(); err != nil {
		a.log.Warn("http shutdown timed out; closing connections", slog.Any("err", err))
		_ = a.httpSrv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("serve http: %w", err)
	}
	return nil
}

// maxRequestBody caps request bodies on the HTTP/1.x path, which buffers them
// (fasthttp); larger bodies get 413. The h2c and TLS paths stream.
const maxRequestBody = 16 << 20

// fastLogger sends fasthttp's messages (connection errors) to slog at debug level.
type fastLogger struct{ log *slog.Logger }

func (l fastLogger) Printf(format string, args ...any) {
	l.log.Debug(fmt.Sprintf(format, args...), slog.String("component", "fasthttp"))
}

// servePlain serves srv on ln until ctx is done, then shuts it down
// gracefully (ShutdownTimeout at most).
func (a *App) servePlain(ctx context.Context, what string, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", what, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", what, err)
	}
	return nil
}

func (a *App) serveGRPC(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- a.grpcSrv.Serve(a.grpcLn) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve grpc: %w", err)
	case <-ctx.Done():
	}
	done := make(chan struct{})
	go func() {
		a.grpcSrv.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(a.cfg.ShutdownTimeout):
		a.log.Warn("grpc graceful stop timed out; stopping")
		a.grpcSrv.Stop()
		<-done
	}
	// A stop that came before Serve started makes Serve return
	// ErrServerStopped: the server was asked to stop, which is no failure.
	if err := <-errc; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return fmt.Errorf("serve grpc: %w", err)
	}
	return nil
}

// Close releases the listeners of an App that will not Run.
func (a *App) Close() {
	for _, ln := range append(append([]net.Listener{a.httpLn, a.grpcLn, a.tcpLn, a.redirectLn}, a.proxyLns...), a.multiLns...) {
		if ln != nil {
			_ = ln.Close()
		}
	}
	for _, pc := range []net.PacketConn{a.udpPC, a.h3PC} {
		if pc != nil {
			_ = pc.Close()
		}
	}
}
