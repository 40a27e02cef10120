// Package echo embeds barrage-echo, Barrage's test target, in another
// process: New binds the listeners that Options enable, Run serves them
// until its context ends. `barrage-api -all-in-one` and the API's tests run
// the echo this way; the barrage-echo command runs the same server.
//
// It is the echo's only public package: the protocol handlers, the fault
// model and the control-plane client stay under services/echo/internal.
// It is not a load generator nor a client of the echo.
package echo

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/services/echo/internal/app"
)

// DefaultShutdownTimeout is Options.ShutdownTimeout when it is zero.
const DefaultShutdownTimeout = 10 * time.Second

// Options configure a Server. Each field is one of barrage-echo's settings
// (services/echo/README.md); OptionsFromEnv fills them the way the command
// reads its environment. A listen address is "host:port" (port 0 picks a
// free port; the accessors of Server return the bound address) or, for
// HTTP and gRPC, "unix:/path/to/socket"; an empty address disables that
// listener, and at least one must be enabled.
type Options struct {
	// HTTPAddr is the HTTP echo (HTTP/1.1 and h2c; h2 with TLS).
	HTTPAddr string
	// GRPCAddr is the gRPC ping, health and reflection server.
	GRPCAddr string
	// TCPAddr and UDPAddr are the TCP and UDP echoes.
	TCPAddr string
	UDPAddr string
	// H3Addr is the UDP address of an HTTP/3 echo; it needs CertFile.
	H3Addr string
	// RedirectAddr serves an HTTP to HTTPS redirector.
	RedirectAddr string
	// TCPProxies are "listen-address destination-address" TCP proxies.
	TCPProxies []string
	// Multi are "listen-address url1 url2 ..." fan-out proxies: each
	// request goes to every URL and is answered with the first's reply.
	Multi []string
	// MultiSerial sends a fan-out request to the URLs one at a time.
	MultiSerial bool
	// MultiMirrorOrigin appends the request's path and query to the URLs
	// (the command's default is true).
	MultiMirrorOrigin bool

	// CertFile and KeyFile, together, serve HTTP and gRPC over TLS.
	CertFile string
	KeyFile  string
	// ClientCAFile makes the TLS listeners require a client certificate
	// signed by one of its PEM certificates (mTLS); it needs CertFile.
	ClientCAFile string

	// MaxDelay is the longest delay a request may ask for; zero allows
	// none (the command's default is 1.5 s).
	MaxDelay time.Duration
	// MaxPayload is the largest generated reply in bytes, at most 64 MiB;
	// zero allows none (the command's default is 256 KiB).
	MaxPayload int64
	// DefaultParams is the query applied to requests without one, e.g.
	// "delay=5ms&status=503:1".
	DefaultParams string
	// ServerTimeHeader names a response header carrying the handler's own
	// time in microseconds; empty sends none.
	ServerTimeHeader string
	// Saturate is "BASE:PER": gRPC calls, TCP reads and UDP datagrams wait
	// BASE + PER × the average in flight on their listener; empty: no wait.
	Saturate string
	// GRPCMaxStreams caps concurrent streams per gRPC connection; zero is
	// gRPC's default.
	GRPCMaxStreams uint32
	// Debug serves /debug, the request dump (the command's default is
	// true); DebugEnv lets /debug?env=dump print the environment.
	Debug    bool
	DebugEnv bool
	// ShutdownTimeout is how long in-flight requests may finish once Run's
	// context ends; zero means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration

	// NATSURL makes the echo managed: it registers with the control plane
	// on this NATS server and applies the echo profile the API activates
	// for it. Empty: unmanaged, and the fields below are unused. A managed
	// echo needs Project and the HTTP echo.
	NATSURL string
	// Name is the echo's name in the control plane; default the hostname.
	Name string
	// Project is the project (id or slug) whose profiles the echo takes.
	Project string
	// CredsFile is the path of the echo's NATS credentials file, from
	// `barrage-api echo-credentials create`.
	CredsFile string
	// Credentials are the echo's NATS user (natsauth.Keys.EchoUser), given
	// in process instead of CredsFile.
	Credentials *natsauth.Credentials
	// Advertise are the host:port addresses runs reach the HTTP echo on;
	// default the hostname, localhost and 127.0.0.1 with the HTTP port.
	Advertise []string

	// Logger receives the echo's logs; default slog.Default().
	Logger *slog.Logger
}

// OptionsFromEnv reads barrage-echo's BARRAGE_ECHO_* settings from environ
// (e.g. os.Environ()), with the command's defaults for those unset: HTTP
// on :8088, gRPC on :8079, TCP and UDP on :8078, and so on. It checks them
// as New does.
func OptionsFromEnv(environ []string) (Options, error) {
	cfg, err := app.ParseConfig(nil, environ, io.Discard)
	if err != nil {
		return Options{}, fmt.Errorf("echo: %w", err)
	}
	return fromConfig(cfg), nil
}

// Server is an echo server: New binds its listeners, Run serves them.
type Server struct {
	app *app.App
}

// New checks opts and binds every enabled listener; it does not serve yet.
// A Server that will not Run is released with Close.
func New(opts Options) (*Server, error) {
	a, err := app.New(opts.config(), cmp.Or(opts.Logger, slog.Default()))
	if err != nil {
		return nil, fmt.Errorf("echo: %w", err)
	}
	return &Server{app: a}, nil
}

// Run serves until ctx is done, then shuts down gracefully: in-flight
// requests get up to ShutdownTimeout to finish. Run is called once per
// Server.
func (s *Server) Run(ctx context.Context) error { return s.app.Run(ctx) }

// Close releases the listeners of a Server that will not Run.
func (s *Server) Close() { s.app.Close() }

// HTTPAddr is the bound address of the HTTP echo, "" when disabled.
func (s *Server) HTTPAddr() string { return s.app.HTTPAddr() }

// GRPCAddr is the bound address of the gRPC server, "" when disabled.
func (s *Server) GRPCAddr() string { return s.app.GRPCAddr() }

// TCPAddr is the bound address of the TCP echo, "" when disabled.
func (s *Server) TCPAddr() string { return s.app.TCPAddr() }

// UDPAddr is the bound address of the UDP echo, "" when disabled.
func (s *Server) UDPAddr() string { return s.app.UDPAddr() }

// H3Addr is the bound UDP address of the HTTP/3 echo, "" when disabled.
func (s *Server) H3Addr() string { return s.app.H3Addr() }

// config maps the options to the server's configuration.
func (o Options) config() app.Config {
	return app.Config{
		HTTPAddr: o.HTTPAddr, GRPCAddr: o.GRPCAddr, TCPAddr: o.TCPAddr, UDPAddr: o.UDPAddr,
		H3Addr: o.H3Addr, RedirectAddr: o.RedirectAddr, TCPProxies: o.TCPProxies, Multi: o.Multi,
		MultiSerial: o.MultiSerial, MultiMirrorOrigin: o.MultiMirrorOrigin,
		CertFile: o.CertFile, KeyFile: o.KeyFile, ClientCAFile: o.ClientCAFile,
		MaxDelay: o.MaxDelay, MaxPayload: app.ByteSize(o.MaxPayload), DefaultParams: o.DefaultParams,
		ServerTimeHeader: o.ServerTimeHeader, Saturate: o.Saturate, GRPCMaxStreams: o.GRPCMaxStreams,
		Debug: o.Debug, DebugEnv: o.DebugEnv, ShutdownTimeout: cmp.Or(o.ShutdownTimeout, DefaultShutdownTimeout),
		NATSURL: o.NATSURL, Name: o.Name, Project: o.Project, Creds: o.CredsFile, Credentials: o.Credentials,
		Advertise: o.Advertise,
	}
}

// fromConfig maps a configuration read by the command's parser to options;
// the log level is the embedding process's business.
func fromConfig(c app.Config) Options {
	return Options{
		HTTPAddr: c.HTTPAddr, GRPCAddr: c.GRPCAddr, TCPAddr: c.TCPAddr, UDPAddr: c.UDPAddr,
		H3Addr: c.H3Addr, RedirectAddr: c.RedirectAddr, TCPProxies: c.TCPProxies, Multi: c.Multi,
		MultiSerial: c.MultiSerial, MultiMirrorOrigin: c.MultiMirrorOrigin,
		CertFile: c.CertFile, KeyFile: c.KeyFile, ClientCAFile: c.ClientCAFile,
		MaxDelay: c.MaxDelay, MaxPayload: int64(c.MaxPayload), DefaultParams: c.DefaultParams,
		ServerTimeHeader: c.ServerTimeHeader, Saturate: c.Saturate, GRPCMaxStreams: c.GRPCMaxStreams,
		Debug: c.Debug, DebugEnv: c.DebugEnv, ShutdownTimeout: c.ShutdownTimeout,
		NATSURL: c.NATSURL, Name: c.Name, Project: c.Project, CredsFile: c.Creds, Credentials: c.Credentials,
		Advertise: c.Advertise,
	}
}
