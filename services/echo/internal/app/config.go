package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	fault "github.com/barrage-dev/barrage/pkg/echofault"
	"github.com/barrage-dev/barrage/pkg/envconf"
	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/services/echo/internal/fanout"
	"github.com/barrage-dev/barrage/services/echo/internal/tcpproxy"
)

// Config is barrage-echo's configuration. Every field is a flag and an environment
// variable of the same meaning; flags win. An empty address disables that listener;
// ":0" picks a free port (the bound address is logged).
type Config struct {
	HTTPAddr        string        `env:"BARRAGE_ECHO_HTTP_ADDR" envDefault:":8088"`
	GRPCAddr        string        `env:"BARRAGE_ECHO_GRPC_ADDR" envDefault:":8079"`
	TCPAddr         string        `env:"BARRAGE_ECHO_TCP_ADDR" envDefault:":8078"`
	UDPAddr         string        `env:"BARRAGE_ECHO_UDP_ADDR" envDefault:":8078"`
	MaxDelay        time.Duration `env:"BARRAGE_ECHO_MAX_DELAY" envDefault:"1.5s"`
	MaxPayload      ByteSize      `env:"BARRAGE_ECHO_MAX_PAYLOAD" envDefault:"256KiB"`
	DefaultParams   string        `env:"BARRAGE_ECHO_DEFAULT_PARAMS"`
	CertFile        string        `env:"BARRAGE_ECHO_CERT"`
	KeyFile         string        `env:"BARRAGE_ECHO_KEY"`
	DebugEnv        bool          `env:"BARRAGE_ECHO_DEBUG_ENV"`
	ShutdownTimeout time.Duration `env:"BARRAGE_ECHO_SHUTDOWN_TIMEOUT" envDefault:"10s"`
	LogLevel        slog.Level    `env:"BARRAGE_ECHO_LOG_LEVEL" envDefault:"info"`
	// TCPProxies are "listen dest" pairs (Fortio's -tcp-proxy).
	TCPProxies []string `env:"BARRAGE_ECHO_TCP_PROXY" envSeparator:","`
	// H3Addr is the UDP address of the HTTP/3 echo (needs -cert/-key).
	H3Addr string `env:"BARRAGE_ECHO_H3_ADDR"`
	// ClientCAFile makes the TLS listeners require a client certificate
	// signed by one of its PEM certificates (mTLS); it needs -cert/-key.
	ClientCAFile string `env:"BARRAGE_ECHO_CLIENT_CA"`
	// GRPCMaxStreams caps concurrent streams per gRPC connection; 0 is
	// grpc-go's default.
	GRPCMaxStreams uint32 `env:"BARRAGE_ECHO_GRPC_MAX_STREAMS"`
	// Debug serves /debug (the request dump); off, /debug is echoed like any path.
	Debug bool `env:"BARRAGE_ECHO_DEBUG" envDefault:"true"`
	// Multi are "listen url1 url2 ..." fan-out proxies (Fortio's -multi).
	Multi []string `env:"BARRAGE_ECHO_MULTI" envSeparator:","`
	// MultiSerial sends a fan-out request to the targets one at a time.
	MultiSerial bool `env:"BARRAGE_ECHO_MULTI_SERIAL"`
	// MultiMirrorOrigin appends the request's path and query to the targets.
	MultiMirrorOrigin bool `env:"BARRAGE_ECHO_MULTI_MIRROR_ORIGIN" envDefault:"true"`
	// RedirectAddr serves an HTTP to HTTPS redirector; empty disables it.
	RedirectAddr string `env:"BARRAGE_ECHO_REDIRECT_ADDR"`
	// Saturate is "BASE:PER": the gRPC calls, TCP reads and UDP datagrams
	// wait BASE + PER × the average in flight on their listener over the
	// last 200 ms (the HTTP saturate parameter's model), or "BASE:PER:rate"
	// for its rate form; empty: no wait.
	Saturate string `env:"BARRAGE_ECHO_SATURATE"`
	// ServerTimeHeader names a response header carrying the echo
	// handler's own time in microseconds; empty sends none.
	ServerTimeHeader string `env:"BARRAGE_ECHO_SERVER_TIME_HEADER"`
	// NATSURL makes the echo managed (issue #12): it registers itself and
	// applies the profile the API activates for it. Empty: unmanaged.
	NATSURL string `env:"BARRAGE_ECHO_NATS_URL"`
	// Creds is the echo's NATS credentials file (`barrage-api echo-credentials create`).
	Creds string `env:"BARRAGE_ECHO_CREDS"`
	// Credentials are the echo's NATS credentials given in process (by
	// `barrage-api -all-in-one`), instead of a Creds file.
	Credentials *natsauth.Credentials `env:"-"`
	// Name is the echo's name in the control plane; default the hostname.
	Name string `env:"BARRAGE_ECHO_NAME"`
	// Project is the project (id or slug) whose profiles the echo takes.
	Project string `env:"BARRAGE_ECHO_PROJECT"`
	// Advertise are the host:port addresses runs reach the HTTP echo on;
	// default the hostname, localhost and 127.0.0.1 with the HTTP port.
	Advertise []string `env:"BARRAGE_ECHO_ADVERTISE" envSeparator:","`
}

// maxPayloadLimit caps -max-payload: the payload is generated in memory at start.
const maxPayloadLimit = 64 << 20

// ParseConfig reads the environment (getenv) and then the flags in args (without
// the program name). It returns flag.ErrHelp for -h.
func ParseConfig(args, environ []string, output io.Writer) (Config, error) {
	var cfg Config
	if err := envconf.Parse(&cfg, environ); err != nil {
		return Config{}, err
	}
	fs := flag.NewFlagSet("barrage-echo", flag.ContinueOnError)
	proxiesFromFlags, multiFromFlags := false, false
	fs.SetOutput(output)
	fs.StringVar(&cfg.HTTPAddr, "http-addr", cfg.HTTPAddr, "HTTP echo address (h2c too; h2 with -cert/-key), or unix:/path/to/socket; empty disables (BARRAGE_ECHO_HTTP_ADDR)")
	fs.StringVar(&cfg.GRPCAddr, "grpc-addr", cfg.GRPCAddr, "gRPC ping/health/reflection address, or unix:/path/to/socket; empty disables (BARRAGE_ECHO_GRPC_ADDR)")
	fs.StringVar(&cfg.TCPAddr, "tcp-addr", cfg.TCPAddr, "TCP echo address; empty disables (BARRAGE_ECHO_TCP_ADDR)")
	fs.StringVar(&cfg.UDPAddr, "udp-addr", cfg.UDPAddr, "UDP echo address; empty disables (BARRAGE_ECHO_UDP_ADDR)")
	fs.DurationVar(&cfg.MaxDelay, "max-delay", cfg.MaxDelay, "longest delay a request may ask for (BARRAGE_ECHO_MAX_DELAY)")
	fs.Var(&cfg.MaxPayload, "max-payload", "largest generated reply, e.g. 256KiB (BARRAGE_ECHO_MAX_PAYLOAD)")
	fs.StringVar(&cfg.DefaultParams, "default-params", cfg.DefaultParams, "query applied to requests without one, e.g. 'delay=5ms&status=503:1' (BARRAGE_ECHO_DEFAULT_PARAMS)")
	fs.StringVar(&cfg.CertFile, "cert", cfg.CertFile, "TLS certificate file for the HTTP and gRPC listeners (BARRAGE_ECHO_CERT)")
	fs.StringVar(&cfg.KeyFile, "key", cfg.KeyFile, "TLS key file (BARRAGE_ECHO_KEY)")
	fs.StringVar(&cfg.ClientCAFile, "client-ca", cfg.ClientCAFile, "require a client certificate signed by a CA of this PEM file (mTLS; needs -cert) (BARRAGE_ECHO_CLIENT_CA)")
	fs.BoolVar(&cfg.DebugEnv, "debug-env", cfg.DebugEnv, "allow /debug?env=dump to print the environment (BARRAGE_ECHO_DEBUG_ENV)")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "how long in-flight requests may finish on SIGTERM (BARRAGE_ECHO_SHUTDOWN_TIMEOUT)")
	fs.TextVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "debug, info, warn or error (BARRAGE_ECHO_LOG_LEVEL)")
	fs.Func("tcp-proxy", `"listen-address destination-address": proxy TCP connections; repeatable (BARRAGE_ECHO_TCP_PROXY, comma-separated)`,
		func(s string) error {
			if !proxiesFromFlags {
				cfg.TCPProxies, proxiesFromFlags = nil, true // flags replace the environment's list
			}
			cfg.TCPProxies = append(cfg.TCPProxies, s)
			return nil
		})
	fs.StringVar(&cfg.H3Addr, "h3-addr", cfg.H3Addr, "UDP address of an HTTP/3 (QUIC) echo; needs -cert and -key; empty disables (BARRAGE_ECHO_H3_ADDR)")
	fs.Func("grpc-max-streams", "most concurrent streams per gRPC connection; 0 = gRPC's default (BARRAGE_ECHO_GRPC_MAX_STREAMS)",
		func(s string) error {
			n, err := strconv.ParseUint(s, 10, 32)
			if err != nil {
				return fmt.Errorf("want a count: %w", err)
			}
			cfg.GRPCMaxStreams = uint32(n)
			return nil
		})
	fs.BoolVar(&cfg.Debug, "debug", cfg.Debug, "serve /debug, the request dump; false echoes it like any path (BARRAGE_ECHO_DEBUG)")
	fs.Func("multi", `"listen-address url1 url2 ...": fan out each request to every URL, answer with the first's; repeatable (BARRAGE_ECHO_MULTI, comma-separated)`,
		func(s string) error {
			if !multiFromFlags {
				cfg.Multi, multiFromFlags = nil, true
			}
			cfg.Multi = append(cfg.Multi, s)
			return nil
		})
	fs.BoolVar(&cfg.MultiSerial, "multi-serial", cfg.MultiSerial, "-multi sends to the targets one after the other, not in parallel (BARRAGE_ECHO_MULTI_SERIAL)")
	fs.BoolVar(&cfg.MultiMirrorOrigin, "multi-mirror-origin", cfg.MultiMirrorOrigin, "-multi appends the request's path and query to each target URL (BARRAGE_ECHO_MULTI_MIRROR_ORIGIN)")
	fs.StringVar(&cfg.RedirectAddr, "redirect-addr", cfg.RedirectAddr, "address of an HTTP to HTTPS redirector (301, 308 for non-GET); empty disables (BARRAGE_ECHO_REDIRECT_ADDR)")
	fs.StringVar(&cfg.ServerTimeHeader, "server-time-header", cfg.ServerTimeHeader, "response header carrying the handler's own time in µs, e.g. X-Server-Time; empty sends none (BARRAGE_ECHO_SERVER_TIME_HEADER)")
	fs.StringVar(&cfg.Saturate, "saturate", cfg.Saturate, "BASE:PER, e.g. 20ms:20ms: gRPC calls, TCP reads and UDP datagrams wait BASE + PER × the average in flight on their listener over 200 ms; BASE:PER:rate waits BASE / (1 − PER × the arrivals per second); HTTP takes the saturate parameter (BARRAGE_ECHO_SATURATE)")
	managedFlags(fs, &cfg)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return cfg, cfg.Validate()
}

// Validate checks the settings that the flag and env parsers cannot.
func (c Config) Validate() error {
	var errs []error
	if c.MaxDelay < 0 {
		errs = append(errs, fmt.Errorf("-max-delay %v: must not be negative", c.MaxDelay))
	}
	if c.MaxPayload < 0 || c.MaxPayload > maxPayloadLimit {
		errs = append(errs, fmt.Errorf("-max-payload %v: must be from 0 to %v", c.MaxPayload, ByteSize(maxPayloadLimit)))
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		errs = append(errs, errors.New("-cert and -key go together"))
	}
	if c.ClientCAFile != "" && c.CertFile == "" {
		errs = append(errs, errors.New("-client-ca needs -cert and -key: client certificates are asked for over TLS"))
	}
	if c.ShutdownTimeout <= 0 {
		errs = append(errs, fmt.Errorf("-shutdown-timeout %v: must be positive", c.ShutdownTimeout))
	}
	for _, r := range c.TCPProxies {
		if _, err := tcpproxy.ParseRoute(r); err != nil {
			errs = append(errs, fmt.Errorf("-tcp-proxy: %w", err))
		}
	}
	if c.H3Addr != "" && c.CertFile == "" {
		errs = append(errs, errors.New("-h3-addr needs -cert and -key: HTTP/3 is TLS only"))
	}
	for _, m := range c.Multi {
		if _, err := fanout.ParseRoute(m); err != nil {
			errs = append(errs, fmt.Errorf("-multi: %w", err))
		}
	}
	if c.ServerTimeHeader != "" && !httpguts.ValidHeaderFieldName(c.ServerTimeHeader) {
		errs = append(errs, fmt.Errorf("-server-time-header %q: not a valid header name", c.ServerTimeHeader))
	}
	if c.Saturate != "" {
		if _, err := fault.ParseSaturate(c.Saturate, c.MaxDelay); err != nil {
			errs = append(errs, fmt.Errorf("-saturate: %w", err))
		}
	}
	errs = append(errs, c.validateManaged()...)
	if c.HTTPAddr == "" && c.H3Addr == "" && c.GRPCAddr == "" && c.TCPAddr == "" && c.UDPAddr == "" && len(c.TCPProxies) == 0 && len(c.Multi) == 0 && c.RedirectAddr == "" {
		errs = append(errs, errors.New("every listener is disabled"))
	}
	return errors.Join(errs...)
}

// ByteSize is a size in bytes that parses "262144", "256KiB", "1MiB", "64kb".
type ByteSize int64

var _ flag.Value = (*ByteSize)(nil)

// String formats the size with the largest binary unit that divides it.
func (b ByteSize) String() string {
	switch {
	case b != 0 && b%(1<<20) == 0:
		return strconv.FormatInt(int64(b>>20), 10) + "MiB"
	case b != 0 && b%(1<<10) == 0:
		return strconv.FormatInt(int64(b>>10), 10) + "KiB"
	}
	return strconv.FormatInt(int64(b), 10)
}

// Set parses s (flag.Value).
func (b *ByteSize) Set(s string) error {
	return b.UnmarshalText([]byte(s))
}

// UnmarshalText parses a size with an optional unit: B, KB/KiB, MB/MiB (K and M
// units are binary, 1024-based, whatever the spelling).
func (b *ByteSize) UnmarshalText(text []byte) error {
	s := strings.TrimSpace(string(text))
	num := strings.TrimRightFunc(s, func(r rune) bool { return r > '9' })
	unit := strings.ToLower(strings.TrimSpace(s[len(num):]))
	mult := map[string]int64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20}[unit]
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || mult == 0 || n < 0 || n > (1<<62)/mult {
		return fmt.Errorf("size %q: want bytes such as 262144 or 256KiB", s)
	}
	*b = ByteSize(n * mult)
	return nil
}
